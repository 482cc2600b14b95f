import { fileURLToPath } from 'node:url';
import { startProcess, type RunningProcess } from '@gw/testkit';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const GW = fileURLToPath(new URL('../bin/gw.js', import.meta.url));

/** `npx gw …` as an operator runs it: a process of its own with exactly this environment. */
export function startGw(args: string[], env: Record<string, string>): RunningProcess {
  return startProcess('gw', process.execPath, [GW, ...args], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
  });
}

/** Runs `gw …` to the end: exit code and everything it printed. */
export async function runGw(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const gw = startGw(args, env);
  const code = await new Promise<number | null>((resolve) =>
    gw.child.once('exit', (exitCode) => resolve(exitCode)),
  );
  return { code, output: gw.output() };
}
