#!/usr/bin/env node
// Makes a fresh clone runnable with only Node and npm: installs the workspace with pnpm (the
// global one, or the pinned version fetched through npm) when node_modules is missing or older
// than the lock file. Quick no-op when everything is installed. Plain JS, no dependencies: it runs
// first.
//
//   node scripts/bootstrap.mjs                 ensure dependencies are installed
//   node scripts/bootstrap.mjs pnpm <args...>  the same, then run pnpm (global or pinned) with args
import { spawnSync } from 'node:child_process';
import { existsSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pnpmCommand } from './lib/pnpm.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const lockFile = join(root, 'pnpm-lock.yaml');
const modulesFile = join(root, 'node_modules', '.modules.yaml');

function fail(message) {
  process.stderr.write(`bootstrap: ${message}\n`);
  process.exit(1);
}

function mtime(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

function run(command, args) {
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (result.error) {
    fail(`could not run ${command}: ${result.error.message}`);
  }
  return result.status ?? 1;
}

function needsInstall() {
  const installed = mtime(modulesFile);
  if (installed === undefined) {
    return true;
  }
  const locked = mtime(lockFile);
  return locked !== undefined && locked > installed;
}

if (needsInstall()) {
  const [command, ...prefix] = pnpmCommand(root);
  const args = existsSync(lockFile) ? ['install', '--frozen-lockfile'] : ['install'];
  process.stderr.write(`bootstrap: installing dependencies (${[command, ...prefix, ...args].join(' ')})\n`);
  const status = run(command, [...prefix, ...args]);
  if (status !== 0) {
    fail(`dependency install failed (exit ${status})`);
  }
  // pnpm leaves .modules.yaml untouched when nothing changed; mark the install as fresh.
  if (existsSync(modulesFile)) {
    const now = new Date();
    utimesSync(modulesFile, now, now);
  }
}

const [verb, ...rest] = process.argv.slice(2);
if (verb === 'pnpm') {
  const [command, ...prefix] = pnpmCommand(root);
  process.exit(run(command, [...prefix, ...rest]));
} else if (verb !== undefined) {
  fail(`unknown command ${verb} (expected nothing or "pnpm <args>")`);
}
