// Where pnpm comes from, for the plain-JS scripts that run before (or without) the workspace's
// own dependencies: the global pnpm, or the version pinned in package.json through npx.
import { accessSync, constants, readFileSync } from 'node:fs';
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

/** The pnpm command as [command, ...leading args] for the workspace at root. */
export function pnpmCommand(root) {
  if (onPath('pnpm')) {
    return ['pnpm'];
  }
  const manager = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager ?? '';
  const version = /^pnpm@([^+]+)/.exec(manager)?.[1];
  return ['npx', '--yes', version ? `pnpm@${version}` : 'pnpm'];
}
