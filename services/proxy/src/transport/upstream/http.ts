import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { portOf, type UpstreamAddressPolicy } from '@gw/kit';
import { FailureClass } from '../../domain/key-health.js';
import type { UpstreamTarget } from '../../domain/providers.js';
import { guardedLookup, refuseLiteralHost } from './address-guard.js';

export type UpstreamAttempt =
  | { ok: true; response: IncomingMessage; abort(): void }
  | { ok: false; failure: typeof FailureClass.Timeout | typeof FailureClass.Connection; error: unknown };

export type UpstreamRequest = UpstreamTarget & {
  method: string;
  /** Written in order: a body built from parts is never copied into one buffer. */
  body: Buffer | Buffer[] | undefined;
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
    cancel: AbortSignal,
    policy: UpstreamAddressPolicy,
  ): Promise<UpstreamAttempt>;
  close(): void;
}

/** Errors of a pooled socket the server had already closed, before any byte of an answer. */
const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

function isStaleSocket(error: unknown, reused: boolean): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return reused && ((typeof code === 'string' && STALE_SOCKET.has(code)) || message === 'socket hang up');
}

/**
 * Requests to upstreams over keep-alive connections. Two pools of agents, one per address rule: a
 * pooled socket skips the lookup, so a socket root's pool opened to a loopback model is never
 * handed to a tenant's request for the same host. Idle sockets are closed after `idleSocketMs`,
 * before the idle timeouts upstream servers commonly use (5 s for Node, 60 s and more elsewhere),
 * so a socket is rarely reused just as the server drops it; when it is, the request is sent once
 * more on a fresh connection and the key is not blamed.
 */
export class UpstreamClient implements HttpUpstream {
  private readonly agents;

  constructor(options: { idleSocketMs: number }) {
    const agentOptions = { keepAlive: true, maxSockets: 512, timeout: options.idleSocketMs };
    this.agents = {
      root: { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) },
      tenant: { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) },
    };
  }

  /**
   * Sends one request and resolves when its response headers arrive (or it fails to: connection
   * error, or no headers within timeoutMs). `cancel` aborts it before that.
   */
  async send(
    target: UpstreamRequest,
    timeoutMs: number,
    cancel: AbortSignal,
    policy: UpstreamAddressPolicy,
  ): Promise<UpstreamAttempt> {
    const refused = refuseLiteralHost(target.url, policy);
    if (refused) {
      return { ok: false, failure: FailureClass.Connection, error: new Error(refused) };
    }
    const secure = target.url.protocol === 'https:';
    const pooled = this.agents[policy.rootPool ? 'root' : 'tenant'][secure ? 'https' : 'http'];
    const first = await this.attempt(target, timeoutMs, cancel, policy, pooled);
    if (first.ok || !first.staleSocket) {
      return first.attempt;
    }
    // The pooled socket was dead before anything came back: once more, on a new connection.
    return (await this.attempt(target, timeoutMs, cancel, policy, false)).attempt;
  }

  close(): void {
    for (const pair of Object.values(this.agents)) {
      pair.http.destroy();
      pair.https.destroy();
    }
  }

  private attempt(
    target: UpstreamRequest,
    timeoutMs: number,
    cancel: AbortSignal,
    policy: UpstreamAddressPolicy,
    agent: HttpAgent | false,
  ): Promise<{ ok: boolean; staleSocket: boolean; attempt: UpstreamAttempt }> {
    return new Promise((resolve) => {
      if (cancel.aborted) {
        resolve({
          ok: false,
          staleSocket: false,
          attempt: { ok: false, failure: FailureClass.Connection, error: new Error('cancelled') },
        });
        return;
      }
      const secure = target.url.protocol === 'https:';
      const headers: Record<string, string> = { ...target.extraHeaders, ...target.headers };
      const chunks = target.body === undefined ? [] : [target.body].flat();
      if (target.body) {
        headers['content-length'] = String(chunks.reduce((total, chunk) => total + chunk.length, 0));
      }
      const request = (secure ? httpsRequest : httpRequest)(target.url, {
        method: target.method,
        headers,
        agent,
        lookup: guardedLookup(policy, portOf(target.url)),
      });
      let settled = false;
      const settle = (attempt: UpstreamAttempt, staleSocket = false) => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          cancel.removeEventListener('abort', onCancel);
          resolve({ ok: attempt.ok, staleSocket, attempt });
        }
      };
      const timer = setTimeout(() => {
        request.destroy(new Error('upstream sent no headers in time'));
        settle({ ok: false, failure: FailureClass.Timeout, error: new Error('timeout') });
      }, timeoutMs);
      const onCancel = () => {
        request.destroy(new Error('cancelled'));
        settle({ ok: false, failure: FailureClass.Connection, error: new Error('cancelled') });
      };
      cancel.addEventListener('abort', onCancel);
      request.on('error', (error) => {
        settle(
          { ok: false, failure: FailureClass.Connection, error },
          isStaleSocket(error, request.reusedSocket),
        );
      });
      request.on('response', (response) => {
        settle({ ok: true, response, abort: () => request.destroy() });
      });
      for (const chunk of chunks) {
        request.write(chunk);
      }
      request.end();
    });
  }
}
