import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { ServiceName } from '@gw/kit';
import { REPO } from './config.js';

/**
 * Runs an admin command a service owns (`services/<service>/src/cli/<command>.ts`) in its own
 * process, through tsx as `npm start` runs services: `gw` only dispatches, it never imports a
 * service. Resolves with the exit code; the command's output goes straight to the terminal.
 */
export function runServiceCommand(
  service: ServiceName,
  command: string,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const tsx = import.meta.resolve('tsx');
  const entry = join(REPO, 'services', service, 'src', 'cli', `${command}.ts`);
  const child = spawn(process.execPath, ['--import', tsx, entry], {
    cwd: join(REPO, 'services', service),
    env,
    stdio: 'inherit',
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}
