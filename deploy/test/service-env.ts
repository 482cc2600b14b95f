import type { ServiceName } from '@gw/kit';

type ConfigLoader = (source: NodeJS.ProcessEnv) => unknown;

/**
 * Runs a service's own environment schema (the `load…Config` of services/<name>/src/config.ts)
 * over the environment a deployment file gives its process, so a missing or malformed variable
 * fails here rather than at start in a cluster. Throws the ConfigError that lists every problem.
 */
export async function loadServiceConfig(service: ServiceName, env: Record<string, string>): Promise<void> {
  const module = (await import(`../../services/${service}/src/config.ts`)) as Record<string, unknown>;
  const loader = Object.entries(module).find(
    (entry): entry is [string, ConfigLoader] =>
      /^load\w+Config$/.test(entry[0]) && typeof entry[1] === 'function',
  )?.[1];
  if (!loader) {
    throw new Error(`services/${service}/src/config.ts exports no load…Config function`);
  }
  loader(env);
}
