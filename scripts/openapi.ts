// Writes docs/openapi.json from the edge's route table, formatted as Prettier formats it;
// `--check` writes nothing and fails when the committed file differs (part of `npm test`).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { buildOpenApiDocument } from '../services/edge/src/openapi/document.js';
import { ROUTES } from '../services/edge/src/routes.js';

const target = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));
const generated = await format(JSON.stringify(buildOpenApiDocument(ROUTES)), {
  ...(await resolveConfig(target)),
  filepath: target,
});

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // A missing file is stale too.
  }
  if (committed !== generated) {
    console.error('docs/openapi.json is stale: run `npm run gen:openapi` and commit it');
    process.exit(1);
  }
  console.log('docs/openapi.json is up to date');
} else {
  writeFileSync(target, generated);
  console.log('wrote docs/openapi.json');
}
