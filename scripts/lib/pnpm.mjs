// Where pnpm comes from, for the plain-JS scripts that run before (or without) the workspace's
// own dependencies: the global pnpm, or the version pinned in package.json, fetched through npm.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

function onPath(name) {
  const names = process.platform === 'win32' ? [`${name}.cmd`, `${name}.exe`, name] : [name];
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const candidate of names) {
      if (!dir) {
        continue;
      }
      try {
        accessSync(join(dir, candidate), constants.X_OK);
        return true;
      } catch {
        // keep looking
      }
    }
  }
  return false;
}

/**
 * Where npm keeps the pinned pnpm it fetched (its npx cache), fetching it on first use; undefined
 * when that cannot be found out. Calling that file directly saves the 2-4 s npx spends on every
 * run looking the package up again (a build deploys each service with one pnpm run).
 */
function cachedPnpm(spec) {
  const result = spawnSync('npm', ['exec', '--yes', `--package=${spec}`, '-c', 'command -v pnpm'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const path = result.status === 0 ? result.stdout.trim() : '';
  return path !== '' && existsSync(path) ? path : undefined;
}

/** The pnpm command as [command, ...leading args] for the workspace at root. */
export function pnpmCommand(root) {
  if (onPath('pnpm')) {
    return ['pnpm'];
  }
  const manager = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager ?? '';
  const version = /^pnpm@([^+]+)/.exec(manager)?.[1];
  const spec = version ? `pnpm@${version}` : 'pnpm';
  const cached = process.platform === 'win32' ? undefined : cachedPnpm(spec);
  return cached ? [cached] : ['npx', '--yes', spec];
}
