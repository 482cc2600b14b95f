import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { portOf, type UpstreamAddressPolicy } from '@gw/kit';
import { FailureClass } from '../../domain/key-health.js';
import type { UpstreamTarget } from '../../domain/providers.js';
import { guardedLookup, refuseLiteralHost } from './address-guard.js';

/**
 * Keep-alive agents, one pair per rule: a pooled socket skips the lookup, so a socket root's
 * pool opened to a loopback model is never handed to a tenant's request for the same host.
 */
const agents = {
  root: {
    http: new HttpAgent({ keepAlive: true, maxSockets: 512 }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: 512 }),
  },
  tenant: {
    http: new HttpAgent({ keepAlive: true, maxSockets: 512 }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: 512 }),
  },
};

export type UpstreamAttempt =
  | { ok: true; response: IncomingMessage; abort(): void }
  | { ok: false; failure: typeof FailureClass.Timeout | typeof FailureClass.Connection; error: unknown };

/**
 * Sends one request upstream and resolves when its response headers arrive (or it fails to:
 * connection error, or no headers within timeoutMs). `cancel` aborts it before that.
 */
export function sendUpstream(
  target: UpstreamTarget & { method: string; body: Buffer | undefined; extraHeaders: Record<string, string> },
  timeoutMs: number,
  cancel: AbortSignal,
  policy: UpstreamAddressPolicy,
): Promise<UpstreamAttempt> {
  const refused = refuseLiteralHost(target.url, policy);
  if (refused) {
    return Promise.resolve({ ok: false, failure: FailureClass.Connection, error: new Error(refused) });
  }
  return new Promise((resolve) => {
    const secure = target.url.protocol === 'https:';
    const headers: Record<string, string> = { ...target.extraHeaders, ...target.headers };
    if (target.body) {
      headers['content-length'] = String(target.body.length);
    }
    const request = (secure ? httpsRequest : httpRequest)(target.url, {
      method: target.method,
      headers,
      agent: agents[policy.rootPool ? 'root' : 'tenant'][secure ? 'https' : 'http'],
      lookup: guardedLookup(policy, portOf(target.url)),
    });
    let settled = false;
    const settle = (attempt: UpstreamAttempt) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        cancel.removeEventListener('abort', onCancel);
        resolve(attempt);
      }
    };
    const timer = setTimeout(() => {
      request.destroy(new Error('upstream sent no headers in time'));
      settle({ ok: false, failure: FailureClass.Timeout, error: new Error('timeout') });
    }, timeoutMs);
    const onCancel = () => {
      request.destroy(new Error('client left'));
      settle({ ok: false, failure: FailureClass.Connection, error: new Error('cancelled') });
    };
    cancel.addEventListener('abort', onCancel);
    request.on('error', (error) => settle({ ok: false, failure: FailureClass.Connection, error }));
    request.on('response', (response) => {
      settle({ ok: true, response, abort: () => request.destroy() });
    });
    request.end(target.body);
  });
}
