import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@gw/kit';
import { forwardableResponseHeaders } from '../../domain/providers.js';
import type { ParsedRequest } from '../../domain/request.js';
import { chunkText, isUsageOnlyChunk, parseJson, SseSplitter } from '../../domain/sse.js';
import { emptyUsage, readUsage, type RelayedAnswer } from '../../domain/usage.js';

/** A JSON answer larger than this is relayed but not parsed for its usage. */
const BODY_USAGE_CAP = 8 * 1024 * 1024;

/** Whether the client is still there; `onGone` is swapped as the request moves on. */
export class ClientState {
  private left = false;
  onGone: () => void = () => undefined;

  constructor(res: ServerResponse) {
    res.on('close', () => {
      if (!res.writableFinished) {
        this.left = true;
        this.onGone();
      }
    });
  }

  /** A method, not a field: it changes between awaits. */
  isGone(): boolean {
    return this.left;
  }
}

export interface AnswerOptions {
  /** A body silent this long is cut. */
  idleMs: number;
  /** After the client leaves, read on this long for the usage upstream will report (0: stop). */
  usageGraceMs: number;
  log: Logger;
}

/**
 * Passes the upstream answer through, unbuffered, honouring back-pressure, and reads the usage
 * on the way: from the SSE chunks of a stream, or from the whole JSON body.
 */
export function relayAnswer(
  options: AnswerOptions,
  request: ParsedRequest,
  upstream: IncomingMessage,
  abortUpstream: () => void,
  res: ServerResponse,
  client: ClientState,
): Promise<RelayedAnswer> {
  const sse = (upstream.headers['content-type'] ?? '').includes('text/event-stream');
  const usage = emptyUsage();
  const splitter = new SseSplitter();
  const decoder = new TextDecoder();
  const bodyChunks: Buffer[] = [];
  let bodySize = 0;
  let relayedText = '';
  let completed = false;

  res.writeHead(upstream.statusCode ?? 502, forwardableResponseHeaders(upstream.headers));
  res.flushHeaders();

  return new Promise<RelayedAnswer>((resolve) => {
    let idle: NodeJS.Timeout | undefined;
    let grace: NodeJS.Timeout | undefined;
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        options.log.warn('upstream went silent: cutting the response');
        abortUpstream();
      }, options.idleMs);
    };
    armIdle();

    // docs/decisions.md §2: the client left; read on (bounded) only for the usage upstream will report.
    client.onGone = () => {
      upstream.resume();
      if (usage.reported || options.usageGraceMs === 0) {
        abortUpstream();
      } else {
        grace = setTimeout(abortUpstream, options.usageGraceMs);
      }
    };

    const write = (data: Buffer | string) => {
      if (client.isGone() || data.length === 0) {
        return;
      }
      if (!res.write(data)) {
        upstream.pause();
        res.once('drain', () => upstream.resume());
      }
    };

    upstream.on('data', (chunk: Buffer) => {
      armIdle();
      if (sse) {
        let out = '';
        for (const event of splitter.push(decoder.decode(chunk, { stream: true }))) {
          const data = parseJson(event.data);
          if (data !== undefined) {
            if ((data as { usage?: unknown }).usage) {
              readUsage(data, usage);
            }
            relayedText += chunkText(data);
          }
          if (!(request.injectUsage && isUsageOnlyChunk(data))) {
            out += event.raw;
          }
        }
        // Without anything to hide, the bytes go on exactly as they came.
        write(request.injectUsage ? out : chunk);
        if (client.isGone() && usage.reported) {
          abortUpstream();
        }
      } else {
        bodySize += chunk.length;
        if (bodySize <= BODY_USAGE_CAP) {
          bodyChunks.push(chunk);
        }
        write(chunk);
      }
    });
    upstream.on('end', () => {
      completed = true;
      if (sse) {
        const rest = splitter.flush();
        if (rest && !(request.injectUsage && isUsageOnlyChunk(parseJson(rest.data)))) {
          write(rest.raw);
        }
      } else if (bodySize <= BODY_USAGE_CAP) {
        const data = parseJson(Buffer.concat(bodyChunks).toString('utf8'));
        if (data !== undefined) {
          readUsage(data, usage);
        }
      }
      if (!client.isGone()) {
        res.end();
      }
    });
    upstream.on('error', () => undefined);
    upstream.on('close', () => {
      clearTimeout(idle);
      clearTimeout(grace);
      if (!completed && !client.isGone()) {
        // Upstream broke mid-answer: the client must see a cut, never a clean end.
        res.destroy();
      }
      resolve({ usage, completed, clientLeft: client.isGone(), relayedText });
    });
  });
}
