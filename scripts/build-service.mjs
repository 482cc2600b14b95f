#!/usr/bin/env node
// Builds services the way their images hold them (deploy/Dockerfile runs this, and so does CI):
// `tsc -b` compiles each service and the workspace packages it imports to their dist/ folders,
// then `pnpm deploy --prod` copies each service's package (package.json, dist/, migrations/) into
// <out-dir>/<service> with its production dependencies only, @gw/kit and @gw/proto as their dist/.
// The edge also gets the built web console (packages/console) under console/.
// Start one from its folder with `node --conditions=gw-dist dist/main.js`.
//
//   node scripts/build-service.mjs <out-dir> <service>...
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pnpmCommand } from './lib/pnpm.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const [outDir, ...services] = process.argv.slice(2);

function fail(message) {
  process.stderr.write(`build-service: ${message}\n`);
  process.exit(1);
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    fail(`${[command, ...args].join(' ')} failed (exit ${String(result.status)})`);
  }
}

if (!outDir || services.length === 0) {
  fail('usage: node scripts/build-service.mjs <out-dir> <service>...');
}
const projects = services.map((service) => join('services', service, 'tsconfig.build.json'));
const missing = services.filter((_, index) => !existsSync(join(root, projects[index])));
if (missing.length > 0) {
  fail(`no service named ${missing.join(', ')} (services/<name>/tsconfig.build.json is missing)`);
}

run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', ...projects]);
const [pnpm, ...prefix] = pnpmCommand(root);
for (const service of services) {
  const target = resolve(outDir, service);
  rmSync(target, { recursive: true, force: true });
  // --legacy: deploy from the shared lock file without turning on injected workspace packages.
  run(pnpm, [
    ...prefix,
    '--filter',
    `@gw/${service}`,
    '--prod',
    '--prefer-offline',
    'deploy',
    '--legacy',
    target,
  ]);
  if (service === 'edge') {
    // The web console the edge serves at /console/: static files, built once, beside dist/.
    run(pnpm, [...prefix, '--filter', '@gw/console', 'run', 'build']);
    cpSync(join(root, 'packages', 'console', 'dist'), join(target, 'console'), { recursive: true });
  }
}
