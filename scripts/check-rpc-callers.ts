// Lint step: every RPC of our contracts (proto/gw/) has a caller outside the tests, so an RPC
// nothing calls is removed through a contract release instead of being served and tested for
// nobody. A call is the generated client's method (`.getKey(` for `rpc GetKey`) in a non-test
// source under services/*/src or packages/*/src (generated code and the test kit aside). Prints
// each uncalled RPC and exits 1.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkRpcCallers, rpcsOf, type Source } from './lib/rpc-callers.js';

/**
 * RPCs only tests call today, kept until their owner decides to call or remove them (issue 26).
 * Each entry says why; the check fails once an entry is called or gone, so delete it then.
 */
const ONLY_TESTS_CALL: Record<string, string> = {
  'AccountsService.Transfer': 'moving credit between a caller and its child; no route offers it yet',
  'KeypoolService.GetKey': 'one key by id; the edge reads one through ListKeys with an id filter',
  'MailerService.ListDeliveries': 'the delivery log, read only by the mailer tests',
};

const root = fileURLToPath(new URL('..', import.meta.url));

function filesUnder(dir: string, extension: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && extension.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

const sourceFolders = ['services', 'packages'].flatMap((folder) =>
  readdirSync(join(root, folder)).map((name) => join(root, folder, name, 'src')),
);
const isCallerSource = (path: string) =>
  !/\.test\.tsx?$/.test(path) &&
  !path.startsWith('packages/proto/src/gen/') &&
  !path.startsWith('packages/testkit/');

const rpcs = filesUnder(join(root, 'proto', 'gw'), /\.proto$/).flatMap((path) =>
  rpcsOf(relative(root, path), readFileSync(path, 'utf8')),
);
const sources: Source[] = sourceFolders
  .flatMap((folder) => {
    try {
      return filesUnder(folder, /\.tsx?$/);
    } catch {
      return []; // a package without src/
    }
  })
  .map((path) => relative(root, path))
  .filter(isCallerSource)
  .map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));

const report = checkRpcCallers(rpcs, sources, ONLY_TESTS_CALL);
for (const rpc of report.uncalled) {
  console.error(
    `${rpc.service}.${rpc.name} (${rpc.file}): no non-test source calls it; remove it (CONTRIBUTING.md, "How to remove an RPC")`,
  );
}
for (const name of report.staleAllowances) {
  console.error(
    `${name} is called now or gone: delete it from ONLY_TESTS_CALL in scripts/check-rpc-callers.ts`,
  );
}
if (report.uncalled.length > 0 || report.staleAllowances.length > 0) {
  process.exit(1);
}
console.log(`every RPC has a caller outside the tests (${rpcs.length} RPCs)`);
