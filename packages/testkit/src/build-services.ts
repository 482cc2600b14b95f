import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The int tests' global setup: compiles every service and the packages they use (`tsc -b`,
 * incremental, so a second run with nothing changed takes a second or two). The gateways the tests
 * start then run JavaScript (see `compiledRoot` in gateway.ts), which starts in about half the CPU
 * time of TypeScript through tsx: a gateway start is most of what an int test file costs.
 */
export default function buildServices(): void {
  const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], {
    cwd: REPO,
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`compiling the services for the int tests failed:\n${result.stdout}${result.stderr}`);
  }
}
