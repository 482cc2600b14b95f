import { lookup } from 'node:dns/promises';

/**
 * Every address a host name resolves to now, or undefined when it does not resolve within
 * timeoutMs (offline, NXDOMAIN, slow DNS). Used by the upstream-address rule wherever a name is
 * checked: at save time a name that does not resolve passes (it is checked again on connect);
 * at connect time it fails.
 */
export async function resolveAddresses(host: string, timeoutMs = 1_000): Promise<string[] | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  try {
    return await Promise.race([
      lookup(host, { all: true, verbatim: true }).then((addresses) =>
        addresses.map((entry) => entry.address),
      ),
      timeout,
    ]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
