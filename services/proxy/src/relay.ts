import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  AppError,
  CALLER_HEADER,
  decodeCaller,
  ErrorCode,
  INTERNAL_TOKEN_HEADER,
  type CallerIdentity,
  type Logger,
  type SelfAddresses,
  type UpstreamAddressPolicy,
} from '@gw/kit';
import { classifyStatus, FailureClass, parseRetryAfter, shouldSwitchLevel } from './domain/key-health.js';
import type {
  KeyHealthStore,
  KeySource,
  LevelEvents,
  OwnerAlerts,
  PoolState,
  UsageOutbox,
} from './domain/ports.js';
import {
  canonicalPath,
  forwardableRequestHeaders,
  forwardableResponseHeaders,
  upstreamTarget,
  type ProviderDefaults,
} from './domain/providers.js';
import { planRoute, switchOverChain, type RoundRobin, type RouteStep } from './domain/route-plan.js';
import { chunkText, isUsageOnlyChunk, parseJson, SseSplitter } from './domain/sse.js';
import { emptyUsage, estimateTokens, readUsage, toUsageEvent, type Usage } from './domain/usage.js';
import { sendUpstream } from './transport/upstream.js';
import type { OwnerPool, PoolKey } from './domain/pool.js';

export interface RelayDeps {
  config: {
    GW_INTERNAL_TOKEN: string;
    PROXY_UPSTREAM_TIMEOUT_MS: number;
    PROXY_STREAM_IDLE_MS: number;
    PROXY_USAGE_GRACE_MS: number;
    PROXY_BODY_LIMIT_BYTES: number;
    PROXY_LEVEL_COOLDOWN_MS: number;
  };
  /** The gateway's own endpoints: never dialled upstream (docs/decisions.md §7). */
  self: SelfAddresses;
  keys: KeySource;
  health: KeyHealthStore;
  outbox: UsageOutbox;
  roundRobin: RoundRobin;
  levels: LevelEvents;
  alerts: OwnerAlerts;
  providers: {
    defaults: ProviderDefaults;
    /** cloud_b: an access token for the key (cached); throws when it cannot be had. */
    accessToken(key: PoolKey): Promise<string>;
  };
  log: Logger;
}

/** The connect-time address rule for this pool: root's may reach loopback and private models. */
export function upstreamPolicy(deps: Pick<RelayDeps, 'self'>, pool: OwnerPool): UpstreamAddressPolicy {
  return { rootPool: pool.ownerIsRoot, self: deps.self };
}

/** The spec's error shape; nothing reached upstream or the client saw nothing of it. */
export function sendError(
  res: ServerResponse,
  status: number,
  type: string,
  code: string,
  message: string,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (status === 503) {
    headers['retry-after'] = '1';
  }
  res.writeHead(status, headers).end(JSON.stringify({ error: { message, type, code } }));
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The edge's hop: the internal token, then the caller identity it authenticated. */
export function trustedCaller(
  req: IncomingMessage,
  internalToken: string,
): CallerIdentity | 'bad_token' | 'no_caller' {
  const token = header(req, INTERNAL_TOKEN_HEADER);
  if (!token || !sameSecret(token, internalToken)) {
    return 'bad_token';
  }
  return decodeCaller(header(req, CALLER_HEADER)) ?? 'no_caller';
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A client request as the relay understands it. */
interface Parsed {
  path: string;
  search: string;
  raw: Buffer;
  json: Record<string, unknown> | undefined;
  model: string;
  stream: boolean;
  /** We asked upstream for usage on the client's behalf and must hide the extra chunk. */
  injectUsage: boolean;
}

function parseRequest(req: IncomingMessage, raw: Buffer): Parsed | AppError {
  const url = new URL(req.url ?? '/', 'http://proxy');
  const path = canonicalPath(url.pathname);
  const contentType = header(req, 'content-type') ?? '';
  let json: Record<string, unknown> | undefined;
  let model = '';
  if (raw.length > 0 && contentType.includes('json')) {
    const value = parseJson(raw.toString('utf8'));
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      return new AppError(ErrorCode.InvalidRequest, 'request body is not a JSON object');
    }
    json = value as Record<string, unknown>;
    model = typeof json.model === 'string' ? json.model : '';
  } else if (raw.length > 0 && contentType.includes('multipart/form-data')) {
    // Audio and image edits: the model is a form field; the body goes upstream unchanged.
    model = /name="model"\r\n\r\n([^\r\n]*)\r\n/.exec(raw.toString('latin1'))?.[1] ?? '';
  }
  const stream = json?.stream === true;
  const options = json?.stream_options as { include_usage?: unknown } | undefined;
  const injectUsage =
    stream &&
    options?.include_usage !== true &&
    (path === '/v1/chat/completions' || path === '/v1/completions');
  return { path, search: url.search, raw, json, model, stream, injectUsage };
}

/** The body for one candidate: the served model written in, usage asked for when we need it. */
function bodyFor(parsed: Parsed, model: string): Buffer {
  if (!parsed.json || (model === parsed.json.model && !parsed.injectUsage)) {
    return parsed.raw;
  }
  const body: Record<string, unknown> = { ...parsed.json };
  if (model) {
    body.model = model;
  }
  if (parsed.injectUsage) {
    body.stream_options = { ...(body.stream_options as object | undefined), include_usage: true };
  }
  return Buffer.from(JSON.stringify(body));
}

/** Whether the client is still there; `onGone` is swapped as the request moves on. */
class ClientState {
  private left = false;
  onGone: () => void = () => undefined;

  /** A method, not a field: it changes between awaits. */
  isGone(): boolean {
    return this.left;
  }

  constructor(res: ServerResponse) {
    res.on('close', () => {
      if (!res.writableFinished) {
        this.left = true;
        this.onGone();
      }
    });
  }
}

interface Relayed {
  usage: Usage;
  completed: boolean;
  clientLeft: boolean;
  relayedText: string;
}

/**
 * The relay: one AI call, top to bottom.
 * 1 trust the hop · 2 outbox bound · 3 read the request · 4 plan the route · 5 try keys until one
 * answers (failover) · 6 relay the answer as it arrives · 7 emit usage.
 */
export async function relay(deps: RelayDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = Date.now();
  const log = deps.log;

  // 1 Only the edge may call: internal token, then the caller identity it authenticated.
  const caller = trustedCaller(req, deps.config.GW_INTERNAL_TOKEN);
  if (caller === 'bad_token' || caller === 'no_caller') {
    sendError(
      res,
      401,
      'authentication_error',
      ErrorCode.Unauthenticated,
      caller === 'bad_token' ? 'internal token missing or wrong' : 'caller identity missing',
    );
    return;
  }

  // 2 Usage must have somewhere to go before upstream is called (docs/decisions.md §5).
  if (deps.outbox.isFull()) {
    log.error('usage outbox over its bound: refusing AI calls');
    sendError(
      res,
      503,
      'api_error',
      ErrorCode.Unavailable,
      'usage recording is backed up; try again shortly',
    );
    return;
  }

  // 3 Read the request: model, stream, whether we ask for usage on the client's behalf.
  const raw = await readBody(req, deps.config.PROXY_BODY_LIMIT_BYTES);
  if (!raw) {
    sendError(res, 413, 'invalid_request_error', ErrorCode.PayloadTooLarge, 'request body is too large');
    return;
  }
  const parsed = parseRequest(req, raw);
  if (parsed instanceof AppError) {
    sendError(res, 400, 'invalid_request_error', parsed.code, parsed.message);
    return;
  }
  const client = new ClientState(res);

  // 4 Plan: pool from memory, sleeping keys and switched Levels from Redis (one round trip).
  let pool;
  try {
    pool = await deps.keys.get(caller.ownerId);
  } catch (error) {
    log.error({ err: error, ownerId: caller.ownerId }, 'key pool unavailable');
    sendError(res, 503, 'api_error', ErrorCode.Unavailable, 'no upstream is available right now');
    return;
  }
  const state = await deps.health.state(caller.ownerId);
  switchBackCooledLevels(deps, caller.ownerId, state);
  const needsModel = parsed.model !== '';
  const planned = planRoute(
    pool,
    needsModel ? caller : { ...caller, allowModels: '' },
    parsed.model,
    state.sleeping,
    deps.roundRobin,
    state.switched,
  );
  if (!planned.ok) {
    switch (planned.reason) {
      case 'model_not_allowed':
      case 'level_not_allowed':
        sendError(res, 403, 'permission_error', ErrorCode.Forbidden, planned.message);
        return;
      case 'model_not_routed':
        sendError(res, 404, 'not_found_error', ErrorCode.NotFound, planned.message);
        return;
      case 'no_key_available':
        sendError(res, 503, 'api_error', ErrorCode.Unavailable, planned.message);
        return;
    }
  }
  const plan = planned.plan;

  // 5 Failover: each key of each step in turn until one answers with something not its fault.
  const failedHere = new Set<string>();
  let onlyRateLimited = true;
  const extraHeaders = forwardableRequestHeaders(req.headers);
  for (const step of plan.steps) {
    for (const key of step.keys) {
      if (client.isGone()) {
        return;
      }
      if (failedHere.has(key.id)) {
        continue;
      }
      const target = upstreamTarget(key, parsed.path, parsed.search, step.model, deps.providers.defaults);
      if (target.needsAccessToken) {
        try {
          target.headers.authorization = `Bearer ${await deps.providers.accessToken(key)}`;
        } catch (error) {
          failedHere.add(key.id);
          onlyRateLimited = false;
          log.warn({ keyId: key.id, err: error }, 'no access token for the key');
          await recordFailure(deps, pool, state, caller.ownerId, key, step.level, FailureClass.Auth);
          continue;
        }
      }
      const cancel = new AbortController();
      client.onGone = () => cancel.abort();
      const attempt = await sendUpstream(
        {
          ...target,
          method: req.method ?? 'POST',
          body: raw.length > 0 ? bodyFor(parsed, step.model) : undefined,
          extraHeaders,
        },
        deps.config.PROXY_UPSTREAM_TIMEOUT_MS,
        cancel.signal,
        upstreamPolicy(deps, pool),
      );
      if (client.isGone()) {
        if (attempt.ok) {
          attempt.abort();
        }
        return;
      }
      if (!attempt.ok) {
        failedHere.add(key.id);
        onlyRateLimited = false;
        log.warn(
          { keyId: key.id, level: step.level, failure: attempt.failure, err: attempt.error },
          'upstream attempt failed',
        );
        await recordFailure(deps, pool, state, caller.ownerId, key, step.level, attempt.failure);
        continue;
      }
      const status = attempt.response.statusCode ?? 502;
      const outcome = classifyStatus(status);
      if (outcome.kind === 'failure') {
        failedHere.add(key.id);
        onlyRateLimited &&= outcome.class === FailureClass.RateLimit;
        log.warn(
          { keyId: key.id, level: step.level, status, failure: outcome.class },
          'upstream answered with a failure',
        );
        const retryAfter = parseRetryAfter(attempt.response.headers['retry-after'], Date.now());
        attempt.response.resume();
        attempt.abort();
        await recordFailure(deps, pool, state, caller.ownerId, key, step.level, outcome.class, retryAfter);
        continue;
      }
      if (outcome.kind === 'success') {
        void deps.health.recordSuccess(caller.ownerId, key.id);
      }

      // 6 Relay: status and headers now, then every chunk as it arrives; usage read on the way.
      const relayed = await relayAnswer(deps, parsed, attempt.response, () => attempt.abort(), res, client);

      // 7 Usage: one event per served call, into the durable outbox before anything else.
      if (status >= 200 && status < 300 && req.method !== 'GET') {
        await emitUsage(deps, {
          caller,
          parsed,
          step,
          key,
          status,
          relayed,
          modelRequested: plan.modelRequested,
          latencyMs: Date.now() - started,
        });
      }
      return;
    }
  }
  if (onlyRateLimited) {
    sendError(
      res,
      429,
      'rate_limit_error',
      ErrorCode.RateLimited,
      'every upstream key is rate limited; try again later',
    );
  } else {
    sendError(res, 503, 'api_error', ErrorCode.Unavailable, 'no upstream could serve this request');
  }
}

/**
 * A failed attempt counts against the key (sleep ladder) and its Level: more than 5 failures in a
 * minute switch a Level with a SWITCH_OVER backup to it for the cool-down (announced once). A
 * credentials failure (401/403) also alerts the owner by mail.
 */
export async function recordFailure(
  deps: Pick<RelayDeps, 'health' | 'levels' | 'alerts' | 'config' | 'log'>,
  pool: OwnerPool,
  state: PoolState,
  ownerId: string,
  key: PoolKey,
  level: number,
  failure: FailureClass,
  retryAfterMs?: number,
): Promise<void> {
  const levelFailures = await deps.health.recordFailure(ownerId, key.id, level, failure, retryAfterMs);
  if (failure === FailureClass.Auth) {
    // The key sleeps the longest step; a person has to fix its credentials.
    await deps.alerts.keyAuthFailed(ownerId, key.id);
  }
  if (!shouldSwitchLevel(levelFailures, switchOverChain(pool, level).length > 0, state.switched.has(level))) {
    return;
  }
  const until = Date.now() + deps.config.PROXY_LEVEL_COOLDOWN_MS;
  state.switched.add(level);
  if (await deps.health.switchLevel(ownerId, level, until)) {
    deps.log.warn({ ownerId, level, until: new Date(until).toISOString() }, 'Level switched to its backup');
    deps.levels.levelSwitched(ownerId, level, until);
  }
}

/** Cool-downs that ended: the first replica to notice clears the mark and announces it. */
function switchBackCooledLevels(deps: RelayDeps, ownerId: string, state: PoolState): void {
  for (const level of state.cooledDown) {
    void deps.health.switchBack(ownerId, level).then((won) => {
      if (won) {
        deps.log.info({ ownerId, level }, 'Level switched back after its cool-down');
        deps.levels.levelSwitched(ownerId, level, undefined);
      }
    });
  }
}

/** Step 6: passes the upstream answer through, unbuffered, honouring back-pressure. */
function relayAnswer(
  deps: RelayDeps,
  parsed: Parsed,
  upstream: IncomingMessage,
  abortUpstream: () => void,
  res: ServerResponse,
  client: ClientState,
): Promise<Relayed> {
  const sse = (upstream.headers['content-type'] ?? '').includes('text/event-stream');
  const usage = emptyUsage();
  const splitter = new SseSplitter();
  const decoder = new TextDecoder();
  const bodyChunks: Buffer[] = [];
  let bodySize = 0;
  const BODY_USAGE_CAP = 8 * 1024 * 1024;
  let relayedText = '';
  let completed = false;

  res.writeHead(upstream.statusCode ?? 502, forwardableResponseHeaders(upstream.headers));
  res.flushHeaders();

  return new Promise<Relayed>((resolve) => {
    let idle: NodeJS.Timeout | undefined;
    let grace: NodeJS.Timeout | undefined;
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        deps.log.warn('upstream went silent: cutting the response');
        abortUpstream();
      }, deps.config.PROXY_STREAM_IDLE_MS);
    };
    armIdle();

    // docs/decisions.md §2: the client left; read on (bounded) only for the usage upstream will report.
    client.onGone = () => {
      upstream.resume();
      if (usage.reported || deps.config.PROXY_USAGE_GRACE_MS === 0) {
        abortUpstream();
      } else {
        grace = setTimeout(abortUpstream, deps.config.PROXY_USAGE_GRACE_MS);
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
          if (!(parsed.injectUsage && isUsageOnlyChunk(data))) {
            out += event.raw;
          }
        }
        // Without anything to hide, the bytes go on exactly as they came.
        write(parsed.injectUsage ? out : chunk);
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
        if (rest && !(parsed.injectUsage && isUsageOnlyChunk(parseJson(rest.data)))) {
          write(rest.raw);
        }
      } else if (bodySize <= BODY_USAGE_CAP) {
        const text = Buffer.concat(bodyChunks).toString('utf8');
        const data = parseJson(text);
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

/** Step 7: builds the UsageRecorded event and appends it to the outbox. */
async function emitUsage(
  deps: RelayDeps,
  call: {
    caller: CallerIdentity;
    parsed: Parsed;
    step: RouteStep;
    key: PoolKey;
    status: number;
    relayed: Relayed;
    modelRequested: string;
    latencyMs: number;
  },
): Promise<void> {
  const { usage, completed, clientLeft, relayedText } = call.relayed;
  const json = call.parsed.json ?? {};
  let partial = !completed || clientLeft;
  if (!usage.reported && (call.parsed.stream || relayedText)) {
    // No usage from upstream: prompt + relayed completion, estimated, and flagged (docs/decisions.md §2).
    usage.promptTokens = estimateTokens(JSON.stringify(json.messages ?? json.prompt ?? json.input ?? ''));
    usage.completionTokens = estimateTokens(relayedText);
    partial = true;
  }
  const event = toUsageEvent({
    accountId: call.caller.accountId,
    ownerId: call.caller.ownerId,
    modelRequested: call.modelRequested,
    modelServed: call.step.model,
    keyId: call.key.id,
    level: call.step.level,
    path: call.parsed.path,
    status: call.status,
    usage,
    imageSize: typeof json.size === 'string' ? json.size : '',
    latencyMs: call.latencyMs,
    partial,
  });
  try {
    await deps.outbox.append(event);
  } catch (error) {
    deps.log.error({ err: error, eventId: event.eventId }, 'usage event could not be written to the outbox');
  }
}
