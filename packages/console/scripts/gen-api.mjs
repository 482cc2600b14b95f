#!/usr/bin/env node
// Generates the console's API types from docs/openapi.json (openapi-typescript), so a changed
// answer breaks the console's type check. `--check` writes nothing and fails when they are stale.
//
//   node packages/console/scripts/gen-api.mjs [--check]
import { readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';

const documentUrl = new URL('../../../docs/openapi.json', import.meta.url);
const target = new URL('../src/api/schema.ts', import.meta.url);
const header =
  '// Generated from docs/openapi.json by scripts/gen-api.mjs: do not edit (npm run gen:console).\n';

const ast = await openapiTS(JSON.parse(readFileSync(documentUrl, 'utf8')));
const text = header + astToString(ast);

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing: stale
  }
  if (current !== text) {
    process.stderr.write('packages/console/src/api/schema.ts is stale: run npm run gen:console\n');
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
}
