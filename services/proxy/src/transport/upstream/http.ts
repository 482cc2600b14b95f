import type { UpstreamAddressPolicy } from '@gw/kit';
import { Agent, Client, Pool, type Dispatcher } from 'undici';
import { FailureClass } from '../../domain/key-health.js';
import { mergeHeaders, type UpstreamTarget } from '../../domain/providers.js';
import { refuseLiteralHost } from './address-guard.js';
import type { Cancellation } from './cancellation.js';
import { connectionOptions } from './connections.js';
import { UpstreamExchange, type UpstreamResponse } from './upstream-exchange.js';

export type UpstreamAttempt =
  | { ok: true; response: UpstreamResponse; abort: () => void }
  | { ok: false; failure: typeof FailureClass.Timeout | typeof FailureClass.Connection; error: unknown };

export type UpstreamRequest = UpstreamTarget & {
  method: string;
  /** Written in order: a body built from parts is never copied into one buffer. */
  body: Buffer | Buffer[] | undefined;
  /** The body's media type, sent as Content-Type beside its length. */
  contentType?: string;
  extraHeaders: Record<string, string>;
};

/** Sends requests to upstreams (the HTTP transport's connection to the outside world). */
export interface HttpUpstream {
  /**
   * Sends one request and resolves when its response headers arrive (or it fails to: connection
   * error, or no headers within timeoutMs). `cancel` aborts it before that.
   */
  send(
    target: UpstreamRequest,
    timeoutMs: number,
    cancel: Cancellation,
    policy: UpstreamAddressPolicy,
  ): Promise<UpstreamAttempt>;
  close(): void;
}

/** Errors of a pooled connection the server had already closed, before any byte of an answer. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET']);

function isStaleConnection(error: Error): boolean {
  const { code } = error as { code?: unknown };
  return typeof code === 'string' && STALE_CONNECTION.has(code);
}

const cancelled = (): UpstreamAttempt => ({
  ok: false,
  failure: FailureClass.Connection,
  error: new Error('cancelled'),
});

/**
 * Requests to upstreams over undici's keep-alive pools, one pool per origin. Two sets of pools,
 * one per address rule: a pooled connection skips the lookup, so one root's pool opened to a
 * loopback model is never handed to a tenant's request for the same host. A set keeps the policy
 * of the first request that needed it: the policy's other parts (the gateway's own addresses, the
 * tenants' private ranges) are the process's. Idle connections are closed after `idleSocketMs`,
 * before the idle timeouts upstream servers commonly use (5 s for Node, 60 s and more
 * elsewhere), so one is rarely reused just as the server drops it; when it is, the request is
 * sent once more on a new connection and the key is not blamed.
 */
export class UpstreamClient implements HttpUpstream {
  private readonly pools: { root?: Agent; tenant?: Agent } = {};

  constructor(private readonly options: { idleSocketMs: number }) {}

  /**
   * Sends one request and resolves when its response headers arrive (or it fails to: connection
   * error, or no headers within timeoutMs). `cancel` aborts it before that.
   */
  async send(
    target: UpstreamRequest,
    timeoutMs: number,
    cancel: Cancellation,
    policy: UpstreamAddressPolicy,
  ): Promise<UpstreamAttempt> {
    const refused = refuseLiteralHost(target.url, policy);
    if (refused) {
      return { ok: false, failure: FailureClass.Connection, error: new Error(refused) };
    }
    const first = await this.exchange(target, timeoutMs, cancel, this.poolsFor(policy));
    if (!first.staleConnection) {
      return first.attempt;
    }
    // The pooled connection was dead before anything came back: once more, on a new one, closed
    // once this answer is read.
    const once = new Client(
      target.url.origin,
      connectionOptions(policy, target.url.origin, this.options.idleSocketMs),
    );
    const second = this.exchange(target, timeoutMs, cancel, once);
    void once.close();
    return (await second).attempt;
  }

  close(): void {
    void this.pools.root?.destroy();
    void this.pools.tenant?.destroy();
  }

  private poolsFor(policy: UpstreamAddressPolicy): Agent {
    const rule = policy.rootPool ? 'root' : 'tenant';
    const { idleSocketMs } = this.options;
    this.pools[rule] ??= new Agent({
      factory: (origin) =>
        new Pool(origin, { ...connectionOptions(policy, String(origin), idleSocketMs), connections: 512 }),
    });
    return this.pools[rule];
  }

  private exchange(
    target: UpstreamRequest,
    timeoutMs: number,
    cancel: Cancellation,
    dispatcher: Dispatcher,
  ): Promise<{ attempt: UpstreamAttempt; staleConnection: boolean }> {
    return new Promise((resolve) => {
      if (cancel.cancelled) {
        resolve({ attempt: cancelled(), staleConnection: false });
        return;
      }
      let settled = false;
      // Settled before any abort: the abort reports an error of its own, which comes too late.
      const settle = (attempt: UpstreamAttempt, staleConnection = false) => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          stopListening();
          resolve({ attempt, staleConnection });
        }
      };
      const exchange = new UpstreamExchange((outcome) => {
        if (outcome.ok) {
          const { body } = outcome.response;
          settle({ ok: true, response: outcome.response, abort: () => body.destroy() });
        } else {
          settle(
            { ok: false, failure: FailureClass.Connection, error: outcome.error },
            outcome.reused && isStaleConnection(outcome.error),
          );
        }
      });
      const timer = setTimeout(() => {
        settle({ ok: false, failure: FailureClass.Timeout, error: new Error('timeout') });
        exchange.abortBeforeHeaders(new Error('upstream sent no headers in time'));
      }, timeoutMs);
      const stopListening = cancel.listen(() => {
        settle(cancelled());
        exchange.abortBeforeHeaders(new Error('cancelled'));
      });
      const headers = requestHeaders(target);
      dispatcher.dispatch(
        {
          origin: target.url.origin,
          path: `${target.url.pathname}${target.url.search}`,
          method: target.method,
          headers,
          // An array of chunks is written one by one (undici's Dispatcher documents iterable
          // bodies; its types name only single values).
          body: target.body as Dispatcher.DispatchOptions['body'],
        },
        exchange,
      );
    });
  }
}

/**
 * What goes upstream as headers: the client's forwarded ones, the key's over them, and the body's
 * type and length.
 */
function requestHeaders(target: UpstreamRequest): Record<string, string> {
  const headers = mergeHeaders(target.extraHeaders, target.headers);
  if (target.contentType) {
    headers['content-type'] = target.contentType;
  }
  const { body } = target;
  if (body) {
    let length = 0;
    for (const chunk of Array.isArray(body) ? body : [body]) {
      length += chunk.length;
    }
    headers['content-length'] = String(length);
  }
  return headers;
}
