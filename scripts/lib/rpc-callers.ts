/**
 * Which RPCs of our contracts nothing calls: an RPC is called when a non-test source holds a call
 * of its generated client method (`.verbNoun(` for `rpc VerbNoun`, as ts-proto names it). Pure
 * functions over file contents; scripts/check-rpc-callers.ts reads the files.
 */

export interface Rpc {
  /** The .proto file, relative to the repository. */
  file: string;
  service: string;
  name: string;
}

export interface Source {
  path: string;
  text: string;
}

/** Every `rpc Name(` of every `service Name {` in one .proto file's text. */
export function rpcsOf(file: string, proto: string): Rpc[] {
  const withoutComments = proto.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
  return [...withoutComments.matchAll(/\bservice\s+(\w+)\s*\{([^}]*)\}/g)].flatMap(([, service, body]) =>
    [...(body ?? '').matchAll(/\brpc\s+(\w+)\s*\(/g)].map(([, name]) => ({
      file,
      service: service ?? '',
      name: name ?? '',
    })),
  );
}

/** The generated client's method for an RPC: `GetKey` → `getKey`. */
export function clientMethod(rpc: string): string {
  return rpc.charAt(0).toLowerCase() + rpc.slice(1);
}

/** The RPCs no source calls through its client method. */
export function uncalledRpcs(rpcs: readonly Rpc[], sources: readonly Source[]): Rpc[] {
  return rpcs.filter((rpc) => {
    const call = new RegExp(`\\.${clientMethod(rpc.name)}\\(`);
    return !sources.some((source) => call.test(source.text));
  });
}

export interface CallerReport {
  /** RPCs nothing calls and no allowance names. */
  uncalled: Rpc[];
  /** Allowances (`Service.Rpc`) that name an RPC that is called or no longer exists. */
  staleAllowances: string[];
}

/**
 * The RPCs nothing calls, minus the allowed ones (`Service.Rpc` → why it stays for now); an
 * allowance that no longer excuses anything is reported too, so the list only shrinks.
 */
export function checkRpcCallers(
  rpcs: readonly Rpc[],
  sources: readonly Source[],
  allowed: Readonly<Record<string, string>>,
): CallerReport {
  const uncalled = uncalledRpcs(rpcs, sources);
  const uncalledNames = new Set(uncalled.map((rpc) => `${rpc.service}.${rpc.name}`));
  return {
    uncalled: uncalled.filter((rpc) => !(`${rpc.service}.${rpc.name}` in allowed)),
    staleAllowances: Object.keys(allowed).filter((name) => !uncalledNames.has(name)),
  };
}
