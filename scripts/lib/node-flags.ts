import type { ServiceName } from '../../packages/kit/src/topology.js';

/**
 * V8 settings of the service processes: a young generation of at most 2 MB (instead of 16) and one
 * background thread for V8. About 35 MB less per idle process (README: footprint), at the cost of
 * more frequent minor collections under load; a deployment runs its images without them.
 */
const NODE_FLAGS = ['--max-semi-space-size=2', '--v8-pool-size=1'];

/**
 * The V8 flags `npm start` runs a service with. The proxy serves every AI call and runs with V8's
 * defaults, as in its image: with the flags above it spent about half as much CPU again per call
 * (bench/RESULTS.md, fifth round), more than the memory is worth.
 */
export function nodeFlagsOf(name: ServiceName): string[] {
  return name === 'proxy' ? [] : NODE_FLAGS;
}
