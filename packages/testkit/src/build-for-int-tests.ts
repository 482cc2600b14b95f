import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));

function run(what: string, script: string, args: string[], cwd: string): void {
  const result = spawnSync(process.execPath, [script, ...args], { cwd, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${what} for the int tests failed:\n${result.stdout}${result.stderr}`);
  }
}

/**
 * The int tests' global setup: builds what the gateways they start serve, so a test never runs
 * against an older build than the source. Every service and the packages they use are compiled
 * (`tsc -b`, incremental: a second run with nothing changed takes a second or two); the gateways
 * then run JavaScript (see `compiledRoot` in gateway.ts), which starts in about half the CPU time
 * of TypeScript through tsx, and a gateway start is most of what an int test file costs. The web
 * console the edge serves is built too (the browser test clicks what the source says).
 */
export default function buildForIntTests(): void {
  run(
    'compiling the services',
    join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'),
    ['-b', 'tsconfig.build.json'],
    REPO,
  );
  const consoleDir = join(REPO, 'packages', 'console');
  run(
    'building the web console',
    join(consoleDir, 'node_modules', 'vite', 'bin', 'vite.js'),
    ['build', '--logLevel', 'warn'],
    consoleDir,
  );
}
