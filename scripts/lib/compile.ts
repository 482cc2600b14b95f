import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { build, stop } from 'esbuild';

/**
 * What `npm start` runs: each service's and workspace package's `src/` transpiled file by file
 * (esbuild, as tsx does in memory, no type check) to `.start/` beside it, at the same depth, so
 * `new URL('../migrations', import.meta.url)` and every import resolve as from `src/`; the
 * services start with `--conditions=gw-start`, under which @gw/kit and @gw/proto resolve to their
 * `.start/`. A process then carries neither tsx's loader nor its esbuild helpers (about 40 MB
 * each, see the README's footprint figures). About a second for the whole workspace; a file is
 * rewritten only when its output changed, and replaced whole (rename), so a second gateway
 * starting from the same checkout never reads a half-written one.
 */
export const START_FOLDER = '.start';

function sourcesIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Transpiles `<package>/src` to `<package>/.start` for each package folder given; answers the files written. */
export async function compileForStart(packages: string[]): Promise<number> {
  try {
    return await compileAll(packages);
  } finally {
    // esbuild's helper process would otherwise idle beside the launcher (about 65 MB).
    await stop();
  }
}

async function compileAll(packages: string[]): Promise<number> {
  let written = 0;
  for (const pkg of packages) {
    const src = join(pkg, 'src');
    const out = join(pkg, START_FOLDER);
    const result = await build({
      entryPoints: sourcesIn(src),
      outdir: out,
      outbase: src,
      bundle: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      logLevel: 'silent',
    });
    for (const file of result.outputFiles) {
      let current: string | undefined;
      try {
        current = readFileSync(file.path, 'utf8');
      } catch {
        current = undefined;
      }
      if (current !== file.text) {
        mkdirSync(dirname(file.path), { recursive: true });
        // Whole or not at all, for a service another gateway starts from this checkout meanwhile.
        const partial = `${file.path}.${process.pid}.tmp`;
        writeFileSync(partial, file.contents);
        renameSync(partial, file.path);
        written++;
      }
    }
    if (result.outputFiles.length === 0) {
      throw new Error(`nothing to compile in ${relative(process.cwd(), src)}`);
    }
  }
  return written;
}
