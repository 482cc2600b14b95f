// The released contract: proto/baseline.binpb is a buf image of proto/ as it was last released.
// `check` fails when proto/ is not backward compatible with it (buf breaking, rules in
// proto/buf.yaml): a running older service must keep understanding every message and RPC.
// `release` rewrites the baseline from proto/ — run it deliberately, when a contract is released.
//
//   node scripts/contract.mjs check [proto-dir]   (npm run check:gen runs it)
//   node scripts/contract.mjs release             (npm run contract:release)
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const buf = join(pkgDir, 'node_modules', '.bin', 'buf');
const [command, dir] = process.argv.slice(2);
const protoDir = resolve(dir ?? join(pkgDir, '..', '..', 'proto'));
const baseline = join(protoDir, 'baseline.binpb');

function run(args) {
  return spawnSync(buf, args, { stdio: 'inherit' }).status ?? 1;
}

if (command === 'check') {
  if (run(['breaking', protoDir, '--against', baseline]) !== 0) {
    console.error(
      'proto/ is not backward compatible with the released contract (proto/baseline.binpb): add ' +
        'fields and RPCs instead of changing or removing them. Only when a new contract is ' +
        'released on purpose: npm run contract:release',
    );
    process.exit(1);
  }
  console.log('proto/ is backward compatible with the released contract');
} else if (command === 'release') {
  process.exit(run(['build', protoDir, '--exclude-source-info', '-o', baseline]));
} else {
  console.error('usage: node scripts/contract.mjs check [proto-dir] | release');
  process.exit(2);
}
