// Regenerates TypeScript from ../../proto with buf + ts-proto. With --check it generates into a
// temporary copy and fails when the committed code differs ("generated files not up to date").
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const protoDir = join(pkgDir, '..', '..', 'proto');
const buf = join(pkgDir, 'node_modules', '.bin', 'buf');
const check = process.argv.includes('--check');

function run(args, cwd) {
  execFileSync(buf, args, { cwd, stdio: 'inherit' });
}

function listFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? listFiles(full) : [full];
  });
}

run(['lint', protoDir], pkgDir);

if (!check) {
  run(['generate', protoDir, '--template', 'buf.gen.yaml'], pkgDir);
  process.exit(0);
}

const scratch = mkdtempSync(join(tmpdir(), 'gw-proto-'));
try {
  cpSync(join(pkgDir, 'buf.gen.yaml'), join(scratch, 'buf.gen.yaml'));
  symlinkSync(join(pkgDir, 'node_modules'), join(scratch, 'node_modules'), 'dir');
  run(['generate', protoDir, '--template', 'buf.gen.yaml'], scratch);
  const fresh = join(scratch, 'src', 'gen');
  const committed = join(pkgDir, 'src', 'gen');
  const names = new Set([
    ...listFiles(fresh).map((f) => relative(fresh, f)),
    ...listFiles(committed).map((f) => relative(committed, f)),
  ]);
  const stale = [...names].filter((name) => {
    try {
      return readFileSync(join(fresh, name), 'utf8') !== readFileSync(join(committed, name), 'utf8');
    } catch {
      return true;
    }
  });
  if (stale.length > 0) {
    console.error(`generated files not up to date (run \`pnpm gen\`): ${stale.join(', ')}`);
    process.exit(1);
  }
  console.log('generated contracts are up to date');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
