// Writes the Configuration table of every services/<name>/README.md from the service's env schema
// (`configShape` in src/config.ts: name, default, `.describe()`), formatted as Prettier formats
// it. `--check` writes nothing and fails when a README is stale or leaves the template
// (scripts/lib/service-readme.ts; part of `npm test`).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { format, resolveConfig } from 'prettier';
import type { z } from 'zod';
import { configTable, configVariables, templateProblems, withConfigTable } from './lib/service-readme.js';

const services = fileURLToPath(new URL('../services', import.meta.url));
const check = process.argv.includes('--check');
const failures: string[] = [];

for (const name of readdirSync(services).sort()) {
  const target = join(services, name, 'README.md');
  const readme = readFileSync(target, 'utf8');
  const problems = templateProblems(readme);
  if (problems.length > 0) {
    failures.push(...problems.map((problem) => `services/${name}/README.md: ${problem}`));
    continue;
  }
  const module = (await import(pathToFileURL(join(services, name, 'src', 'config.ts')).href)) as {
    configShape: Record<string, z.ZodType>;
  };
  const generated = await format(withConfigTable(readme, configTable(configVariables(module.configShape))), {
    ...(await resolveConfig(target)),
    filepath: target,
  });
  if (generated === readme) {
    continue;
  }
  if (check) {
    failures.push(`services/${name}/README.md is stale: run \`npm run gen:readmes\` and commit it`);
  } else {
    writeFileSync(target, generated);
    console.log(`wrote services/${name}/README.md`);
  }
}
if (failures.length > 0) {
  console.error(failures.join('\n'));
  process.exit(1);
}
console.log(check ? 'service READMEs are up to date' : 'service READMEs written');
