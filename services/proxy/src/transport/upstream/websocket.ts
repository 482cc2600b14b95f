import { portOf, REALTIME_PATH, type UpstreamAddressPolicy } from '@gw/kit';
import WebSocket, { type RawData } from 'ws';
import { FailureClass } from '../../domain/key-health.js';
import type { PoolKey } from '../../domain/pool.js';
import { standardTarget } from '../../domain/providers.js';
import { guardedLookup, refuseLiteralHost } from './address-guard.js';

export type Frame = [data: RawData, isBinary: boolean];

export type UpstreamSocket =
  | { ok: true; socket: WebSocket; takeEarlyFrames: () => Frame[] }
  | { ok: false; status?: number; failure?: FailureClass };

/**
 * Opens the realtime socket of one key; resolves once it is open, refused (with its status) or
 * timed out. The address rule applies at connect time as for HTTP.
 */
export function openUpstreamSocket(
  key: PoolKey,
  model: string,
  search: URLSearchParams,
  headers: Record<string, string>,
  timeoutMs: number,
  policy: UpstreamAddressPolicy,
  maxFrameBytes: number,
): Promise<UpstreamSocket> {
  const query = new URLSearchParams(search);
  query.set('model', model);
  const target = standardTarget(key, REALTIME_PATH, `?${query.toString()}`);
  target.url.protocol = target.url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (refuseLiteralHost(target.url, policy)) {
    return Promise.resolve({ ok: false, failure: FailureClass.Connection });
  }
  return new Promise((resolve) => {
    const upstream = new WebSocket(target.url, {
      headers: { ...headers, ...target.headers },
      handshakeTimeout: timeoutMs,
      perMessageDeflate: false,
      // A frame over the bound is never buffered: the session closes (1009) instead.
      maxPayload: maxFrameBytes,
      lookup: guardedLookup(policy, portOf(target.url)),
    });
    // Frames that arrive with the handshake are emitted before our caller resumes: keep them.
    const early: Frame[] = [];
    const keep = (data: RawData, isBinary: boolean) => early.push([data, isBinary]);
    upstream.on('message', keep);
    upstream.once('open', () =>
      resolve({
        ok: true,
        socket: upstream,
        takeEarlyFrames: () => {
          upstream.off('message', keep);
          return early.splice(0);
        },
      }),
    );
    upstream.once('unexpected-response', (_request, response) => {
      response.resume();
      upstream.terminate();
      resolve({ ok: false, status: response.statusCode ?? 502 });
    });
    upstream.once('error', (error) => {
      resolve({
        ok: false,
        failure: /timeout/i.test(String(error)) ? FailureClass.Timeout : FailureClass.Connection,
      });
    });
  });
}
