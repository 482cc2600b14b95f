import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { SECRET_SERIALIZERS, withoutSecrets } from './log-secrets.js';
import { bufferedStdout } from './log-stdout.js';
import { SYSTEM_VERSION } from './version.js';

export type { Logger } from 'pino';

/** What travels with one request or message: HTTP header, gRPC metadata and NATS header. */
export interface RequestContext {
  requestId: string;
  /** When the caller stops waiting (epoch ms; a gRPC call's deadline): later work is not asked for. */
  deadline?: number;
}

export const REQUEST_ID_HEADER = 'x-request-id';

const storage = new AsyncLocalStorage<RequestContext>();

/**
 * Runs `fn` inside a request context: its log lines, gRPC calls and NATS messages carry the request
 * id. On Node 20 the first context entered switches on a promise hook for every promise the process
 * makes from then on; in the proxy that was about a seventh of its CPU per AI call. So the proxy
 * never enters one: its AI path passes the request id explicitly (a child logger, the usage
 * event's publish), and a lint rule keeps this function out of it.
 */
export function runWithContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** The current caller's deadline (epoch ms), if it set one. */
export function currentDeadline(): number | undefined {
  return storage.getStore()?.deadline;
}

/** Standard output, shared by every logger of the process: one buffer, lines in the order logged. */
let stdout: DestinationStream | undefined;

/**
 * One root logger per service; every line carries the current request id when there is one.
 * Lines go to stdout unless another destination is given (admin commands log to stderr, line by
 * line).
 */
export function createLogger(service: string, level = 'info', destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    base: { service, version: SYSTEM_VERSION },
    // Secrets are censored by our own walk, not pino's `redact`: with wildcard paths pino ran its
    // redactor on every field of every line, about 5 µs and a fresh clone per access line. The
    // serializers cover a child logger's bindings, which pino never passes to a formatter.
    formatters: { log: withoutSecrets },
    serializers: SECRET_SERIALIZERS,
    mixin() {
      const requestId = currentRequestId();
      return requestId ? { requestId } : {};
    },
  };
  // Standard output written asynchronously and in batches (log-stdout.ts: up to 48 KiB, a quiet
  // process's line within 100 ms, all of it on exit): a service under load writes a line or two
  // per call, and one write(2) per line in the request's own tick cost the hot path more than any
  // frame of ours.
  return pino(options, destination ?? (stdout ??= bufferedStdout()));
}
