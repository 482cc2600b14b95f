import type { ServiceName } from '../../packages/kit/src/topology.js';

/**
 * V8 settings of the service processes: a young generation of at most 2 MB (instead of 16) and one
 * background thread for V8. About 35 MB less per idle process (README: footprint), at the cost of
 * more frequent minor collections under load; a deployment runs its images without them.
 */
const SMALL_HEAP = ['--max-semi-space-size=2', '--v8-pool-size=1'];

/**
 * V8's memory reducer shrinks an idle process's heap, and the first seconds of traffic after a
 * pause then cost two to three times the CPU per call (docs/adr/0013-keep-the-heap-warm.md).
 * Every AI call is served by the proxy and recorded by billing and accounts, so they keep their
 * heap; the services that answer the console and the admin API give the memory back.
 */
const KEEP_HEAP = ['--no-memory-reducer'];

/** Besides the proxy, the services every AI call gives work to: they record its usage. */
const ON_EVERY_CALL: ReadonlySet<ServiceName> = new Set(['billing', 'accounts']);

/**
 * The V8 flags `npm start` runs a service with. The proxy runs with V8's default heap, as in its
 * image: with the small heap it spent about half as much CPU again per call (bench/RESULTS.md,
 * fifth round), more than the memory is worth.
 */
export function nodeFlagsOf(name: ServiceName): string[] {
  if (name === 'proxy') {
    return KEEP_HEAP;
  }
  return ON_EVERY_CALL.has(name) ? [...SMALL_HEAP, ...KEEP_HEAP] : SMALL_HEAP;
}
