import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { onNewConnection } from './connections.js';
import { nodeHeaders } from './response-headers.js';

/** An upstream answer once its headers came: what the relay reads of it. */
export interface UpstreamResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The body as it arrives, paused upstream while its reader does not keep up. */
  body: Readable;
}

export type ExchangeOutcome =
  | { ok: true; response: UpstreamResponse }
  /** `reused`: the request had gone out on a pooled connection that served others before. */
  | { ok: false; error: Error; reused: boolean };

/**
 * An answer's body: what undici parses from one read of the socket is pushed as one chunk, and
 * undici stops reading while the buffer is full. Destroyed before its end (the relay's abort), it
 * aborts the request, which closes the connection.
 *
 * Upstreams send a stream's every event as its own HTTP chunk, and undici hands each on as it
 * parses it: twenty-odd for one read of a short answer. Pushed one by one, each went through the
 * stream, the meter and a chunked write of its own to the client (four iovecs each in the
 * socket's one `writev`); gathered until the parse of the read is done, they go through once.
 */
class UpstreamBody extends Readable {
  private complete = false;
  /** Chunks parsed from the read under way, pushed together once its parse ends. */
  private parsed: Buffer[] = [];

  constructor(private readonly controller: Dispatcher.DispatchController) {
    super({ highWaterMark: 64 * 1024 });
  }

  add(chunk: Buffer): void {
    if (this.parsed.push(chunk) === 1) {
      queueMicrotask(() => this.pushParsed());
    }
  }

  /** Pushes what was parsed; a full buffer pauses undici until the reader asks for more. */
  pushParsed(): void {
    const parsed = this.parsed;
    if (parsed.length === 0 || this.destroyed) {
      return;
    }
    this.parsed = [];
    if (!this.push(parsed.length === 1 ? parsed[0] : Buffer.concat(parsed))) {
      this.controller.pause();
    }
  }

  finish(): void {
    this.pushParsed();
    this.complete = true;
    this.push(null);
  }

  override _read(): void {
    this.controller.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.complete) {
      this.controller.abort(error ?? new Error('upstream answer abandoned'));
    }
    callback(error);
  }
}

/**
 * One request's undici handler: reports once, with the answer's headers or the error that came
 * instead, and then feeds the body. `abortBeforeHeaders` stops it at any point before (a request
 * still waiting for a connection is aborted as soon as it gets one).
 */
export class UpstreamExchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private body: UpstreamBody | undefined;
  private abortedWith: Error | undefined;
  private reused = false;

  constructor(private readonly report: (outcome: ExchangeOutcome) => void) {}

  abortBeforeHeaders(reason: Error): void {
    this.abortedWith = reason;
    this.controller?.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    this.reused = !onNewConnection();
    if (this.abortedWith) {
      controller.abort(this.abortedWith);
    }
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // An informational answer (1xx): the real one follows on the same request.
    if (statusCode < 200) {
      return;
    }
    this.body = new UpstreamBody(controller);
    this.report({ ok: true, response: { statusCode, headers: nodeHeaders(headers), body: this.body } });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.body?.add(chunk);
  }

  onResponseEnd(): void {
    this.body?.finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.body) {
      // What came before the error still reaches the reader (it may hold the usage).
      this.body.pushParsed();
      this.body.destroy(error);
    } else {
      this.report({ ok: false, error, reused: this.reused });
    }
  }
}
