import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Logger } from '@gw/kit';
import { AnswerMeter, answerKind, type AnswerKind } from '../../domain/answer-meter.js';
import type { AnswerTranslator } from '../../domain/anthropic/chat-answer.js';
import { forwardableResponseHeaders } from '../../domain/providers.js';
import { clientErrorBody } from '../../domain/upstream-error.js';
import type { RelayedAnswer } from '../../domain/usage.js';
import type { UpstreamResponse } from '../upstream/upstream-exchange.js';
import { TurnWrites } from './turn-writes.js';

/** An upstream error body is read whole up to this size, to tell what it is about. */
const ERROR_BODY_LIMIT = 64 * 1024;

/** Whether the client is still there, and who wants to know when it leaves. */
export class ClientState {
  private left = false;
  private readonly listeners = new Set<() => void>();

  constructor(res: ServerResponse) {
    res.on('close', () => {
      if (!res.writableFinished) {
        this.left = true;
        for (const listener of this.listeners) {
          listener();
        }
      }
    });
  }

  /** A method, not a field: it changes between awaits. */
  isGone(): boolean {
    return this.left;
  }

  /** Calls `listener` when the client leaves (at once when it already has); answers how to stop. */
  whenGone(listener: () => void): () => void {
    if (this.left) {
      listener();
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export interface AnswerOptions {
  /** A body silent this long is cut. */
  idleMs: number;
  /** After the client leaves, read on this long for the usage upstream will report (0: stop). */
  usageGraceMs: number;
  /** Hide the usage-only chunk we asked for on the client's behalf. */
  hideUsageChunk: boolean;
  /** Rewrites the answer for the client (a translated call); metering reads upstream's bytes. */
  translate?: (kind: AnswerKind) => AnswerTranslator;
  log: Logger;
}

/** An error answer's body, read whole (bounded) so it can be classified and then relayed. */
export async function readErrorBody(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size < ERROR_BODY_LIMIT) {
      chunks.push(chunk.subarray(0, ERROR_BODY_LIMIT - size));
    }
    size += chunk.length;
  }
  return Buffer.concat(chunks);
}

/**
 * Relays an upstream error that was the client's own doing, with its status: only
 * `error.{message,type,code,param}` of its body, key-shaped text masked (`clientErrorBody`).
 */
export function relayError(res: ServerResponse, upstream: UpstreamResponse, body: Buffer): void {
  const status = upstream.statusCode;
  const answer = clientErrorBody(body, status);
  const headers = forwardableResponseHeaders(upstream.headers);
  res
    .writeHead(status, {
      ...headers,
      'content-type': 'application/json',
      'content-length': String(answer.length),
    })
    .end(answer);
}

/**
 * Passes the upstream answer through, unbuffered, honouring back-pressure, and meters it on the
 * way. When the client is gone (before or during the answer), upstream is read on for at most the
 * usage grace, so a call upstream bills anyway is charged (docs/decisions.md §2).
 */
export function relayAnswer(
  options: AnswerOptions,
  upstream: UpstreamResponse,
  abortUpstream: () => void,
  res: ServerResponse,
  client: ClientState,
): Promise<RelayedAnswer> {
  const kind = answerKind(upstream.headers['content-type']);
  const meter = new AnswerMeter(kind, options.hideUsageChunk);
  const translator = options.translate?.(kind);
  const forClient = (data: Buffer | string) => (translator ? translator.push(data) : data);
  let completed = false;

  // A JSON, text or binary answer that is not translated reaches the client byte for byte, so
  // upstream's Content-Length holds for it: the client's answer is then one write (headers and
  // body) instead of three (headers, a chunk, the chunked terminator). A stream's headers go by
  // the end of this turn of the event loop, with whatever events came with them: its first byte
  // is the client's time to first token.
  const unchanged = kind !== 'sse' && !translator;
  const turn = new TurnWrites(res, () => {
    if (kind === 'sse' && !res.headersSent && !client.isGone()) {
      res.flushHeaders();
    }
  });
  if (!client.isGone()) {
    const headers = forwardableResponseHeaders(upstream.headers);
    const length = upstream.headers['content-length'];
    if (unchanged && length !== undefined) {
      headers['content-length'] = length;
    }
    res.writeHead(upstream.statusCode, headers);
    turn.hold();
  }

  return new Promise<RelayedAnswer>((resolve) => {
    let grace: NodeJS.Timeout | undefined;
    // One timer for the whole answer, restarted by each chunk (a new timer per chunk of a stream
    // cost an allocation and a clear each time).
    const idle = setTimeout(() => {
      options.log.warn('upstream went silent: cutting the response');
      abortUpstream();
    }, options.idleMs);

    const readOnForUsage = () => {
      upstream.body.resume();
      if (meter.usage.reported || options.usageGraceMs === 0) {
        abortUpstream();
      } else {
        grace = setTimeout(abortUpstream, options.usageGraceMs);
      }
    };
    const stopWatching = client.whenGone(readOnForUsage);

    const write = (data: Buffer | string) => {
      if (client.isGone() || data.length === 0) {
        return;
      }
      turn.hold();
      const room = res.write(data);
      if (!room) {
        upstream.body.pause();
        res.once('drain', () => upstream.body.resume());
      }
    };

    upstream.body.on('data', (chunk: Buffer) => {
      idle.refresh();
      write(forClient(meter.push(chunk)));
      if (client.isGone() && meter.usage.reported && kind === 'sse') {
        abortUpstream();
      }
    });
    upstream.body.on('end', () => {
      completed = true;
      write(forClient(meter.end()));
      write(translator?.end() ?? '');
      if (!client.isGone()) {
        res.end();
      }
      turn.release();
    });
    upstream.body.on('error', () => undefined);
    upstream.body.on('close', () => {
      stopWatching();
      clearTimeout(idle);
      clearTimeout(grace);
      if (!completed && !client.isGone()) {
        // Upstream broke mid-answer: the client must see a cut, never a clean end.
        res.destroy();
      }
      resolve({
        usage: meter.usage,
        createdIds: [...meter.createdIds],
        completed,
        clientLeft: client.isGone(),
        seen: () => meter.seenText(),
      });
    });
  });
}
