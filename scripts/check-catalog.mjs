#!/usr/bin/env node
// Lint step: every third-party dependency of every workspace package takes its version from the
// one catalog in pnpm-workspace.yaml (`"name": "catalog:"`), so the workspace never holds two
// versions of a library. Prints each stray and exits 1.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const inFolder = (folder) =>
  readdirSync(join(root, folder)).map((name) => join(folder, name, 'package.json'));
const strays = [];
for (const file of [
  'package.json',
  'deploy/package.json',
  ...inFolder('packages'),
  ...inFolder('services'),
]) {
  const manifest = JSON.parse(readFileSync(join(root, file), 'utf8'));
  for (const section of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    for (const [name, spec] of Object.entries(manifest[section] ?? {})) {
      if (spec !== 'catalog:' && !spec.startsWith('workspace:')) {
        strays.push(`${file}: ${name}@${spec} (write "catalog:" and put the version in pnpm-workspace.yaml)`);
      }
    }
  }
}
if (strays.length > 0) {
  process.stderr.write(`dependency versions outside the catalog:\n  ${strays.join('\n  ')}\n`);
  process.exit(1);
}
