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

/** The processes every AI call runs through: the proxy serves it, billing and accounts record it. */
const ON_EVERY_CALL: ReadonlySet<ServiceName> = new Set(['proxy', 'billing', 'accounts']);

/**
 * The processes that run with V8's default heap size, as in their images. The proxy: with the small
 * heap it spent about half as much CPU again per call (bench/RESULTS.md, fifth round), more than
 * the memory is worth. Billing, which decodes and prices every call's event: with the small heap,
 * collection took about a quarter of its CPU, and with the default it spent about 8 µs less per
 * call and held no more memory under load (eighteenth round). Accounts measured the same either way.
 */
const DEFAULT_HEAP: ReadonlySet<ServiceName> = new Set(['proxy', 'billing']);

/** The V8 flags `npm start` runs a service with. */
export function nodeFlagsOf(name: ServiceName): string[] {
  return [...(DEFAULT_HEAP.has(name) ? [] : SMALL_HEAP), ...(ON_EVERY_CALL.has(name) ? KEEP_HEAP : [])];
}
