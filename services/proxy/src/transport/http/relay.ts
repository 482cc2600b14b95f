import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, ErrorCode, type CallerIdentity } from '@gw/kit';
import { failureDeps, upstreamPolicy, type ProxyDeps } from '../../deps.js';
import { classifyStatus, FailureClass, parseRetryAfter } from '../../domain/key-health.js';
import type { PoolKey } from '../../domain/pool.js';
import { forwardableRequestHeaders, upstreamTarget } from '../../domain/providers.js';
import { recordFailure, switchBackCooledLevels } from '../../domain/record-failure.js';
import { bodyFor, parseRequest, type ParsedRequest } from '../../domain/request.js';
import { planRoute, refusalError, type RouteStep } from '../../domain/route-plan.js';
import { toUsageEvent, usageOfServedCall, type RelayedAnswer } from '../../domain/usage.js';
import { sendUpstream } from '../upstream/http.js';
import { ClientState, relayAnswer } from './answer.js';
import { header, readBody, trustedCaller } from './hop.js';

/**
 * The proxy's hop of an AI call, top to bottom.
 * 1 trust the hop · 2 outbox bound · 3 read the request · 4 plan the route · 5 try keys until one
 * answers (failover) · 6 relay the answer as it arrives · 7 emit usage.
 * A refusal before the answer starts is thrown as an AppError and answered in the spec's shape.
 */
export async function relay(deps: ProxyDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = Date.now();
  const log = deps.log;

  // 1 Only the edge may call: internal token, then the caller identity it authenticated.
  const caller = trustedCaller(req, deps.config.GW_INTERNAL_TOKEN);

  // 2 Usage must have somewhere to go before upstream is called (docs/decisions.md §5).
  if (deps.outbox.isFull()) {
    log.error('usage outbox over its bound: refusing AI calls');
    throw new AppError(ErrorCode.Unavailable, 'usage recording is backed up; try again shortly');
  }

  // 3 Read the request: model, stream, whether we ask for usage on the client's behalf.
  const raw = await readBody(req, deps.config.PROXY_BODY_LIMIT_BYTES);
  if (!raw) {
    throw new AppError(ErrorCode.PayloadTooLarge, 'request body is too large');
  }
  const request = parseRequest(req.url ?? '/', header(req, 'content-type') ?? '', raw);
  if (request instanceof AppError) {
    throw request;
  }
  const client = new ClientState(res);

  // 4 Plan: pool from memory, sleeping keys and switched Levels from Redis (one round trip).
  const pool = await deps.keys.get(caller.ownerId).catch((error: unknown) => {
    log.error({ err: error, ownerId: caller.ownerId }, 'key pool unavailable');
    throw new AppError(ErrorCode.Unavailable, 'no upstream is available right now');
  });
  const state = await deps.health.state(caller.ownerId);
  switchBackCooledLevels(deps, caller.ownerId, state);
  const planned = planRoute(
    pool,
    request.model !== '' ? caller : { ...caller, allowModels: '' },
    request.model,
    state.sleeping,
    deps.roundRobin,
    state.switched,
  );
  if (!planned.ok) {
    throw refusalError(planned.reason, planned.message);
  }

  // 5 Failover: each key of each step in turn until one answers with something not its fault.
  const failedHere = new Set<string>();
  const failures: FailureClass[] = [];
  const extraHeaders = forwardableRequestHeaders(req.headers);
  const failed = async (key: PoolKey, level: number, failure: FailureClass, retryAfterMs?: number) => {
    failedHere.add(key.id);
    failures.push(failure);
    await recordFailure(failureDeps(deps), { pool, state, key, level, failure, retryAfterMs });
  };
  for (const step of planned.plan.steps) {
    for (const key of step.keys) {
      if (client.isGone()) {
        return;
      }
      if (failedHere.has(key.id)) {
        continue;
      }
      const target = upstreamTarget(key, request.path, request.search, step.model, deps.providers.defaults);
      if (target.needsAccessToken) {
        try {
          target.headers.authorization = `Bearer ${await deps.providers.accessToken(key)}`;
        } catch (error) {
          log.warn({ keyId: key.id, err: error }, 'no access token for the key');
          await failed(key, step.level, FailureClass.Auth);
          continue;
        }
      }
      const cancel = new AbortController();
      client.onGone = () => cancel.abort();
      const attempt = await sendUpstream(
        {
          ...target,
          method: req.method ?? 'POST',
          body: raw.length > 0 ? bodyFor(request, step.model) : undefined,
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
        log.warn(
          { keyId: key.id, level: step.level, failure: attempt.failure, err: attempt.error },
          'upstream attempt failed',
        );
        await failed(key, step.level, attempt.failure);
        continue;
      }
      const status = attempt.response.statusCode ?? 502;
      const outcome = classifyStatus(status);
      if (outcome.kind === 'failure') {
        log.warn(
          { keyId: key.id, level: step.level, status, failure: outcome.class },
          'upstream answered with a failure',
        );
        const retryAfter = parseRetryAfter(attempt.response.headers['retry-after'], Date.now());
        attempt.response.resume();
        attempt.abort();
        await failed(key, step.level, outcome.class, retryAfter);
        continue;
      }
      if (outcome.kind === 'success') {
        void deps.health.recordSuccess(caller.ownerId, key.id);
      }

      // 6 Relay: status and headers now, then every chunk as it arrives; usage read on the way.
      const relayed = await relayAnswer(
        { idleMs: deps.config.PROXY_STREAM_IDLE_MS, usageGraceMs: deps.config.PROXY_USAGE_GRACE_MS, log },
        request,
        attempt.response,
        () => attempt.abort(),
        res,
        client,
      );

      // 7 Usage: one event per served call, into the durable outbox before anything else.
      if (status >= 200 && status < 300 && req.method !== 'GET') {
        await emitUsage(deps, { caller, request, step, key, status, relayed, started });
      }
      return;
    }
  }
  throw failures.every((failure) => failure === FailureClass.RateLimit)
    ? new AppError(ErrorCode.RateLimited, 'every upstream key is rate limited; try again later')
    : new AppError(ErrorCode.Unavailable, 'no upstream could serve this request');
}

/** Step 7: builds the UsageRecorded event and appends it to the outbox. */
async function emitUsage(
  deps: ProxyDeps,
  call: {
    caller: CallerIdentity;
    request: ParsedRequest;
    step: RouteStep;
    key: PoolKey;
    status: number;
    relayed: RelayedAnswer;
    started: number;
  },
): Promise<void> {
  const { usage, partial } = usageOfServedCall(call.request, call.relayed);
  const json = call.request.json ?? {};
  const event = toUsageEvent({
    accountId: call.caller.accountId,
    ownerId: call.caller.ownerId,
    modelRequested: call.request.model,
    modelServed: call.step.model,
    keyId: call.key.id,
    level: call.step.level,
    path: call.request.path,
    status: call.status,
    usage,
    imageSize: typeof json.size === 'string' ? json.size : '',
    latencyMs: Date.now() - call.started,
    partial,
  });
  try {
    await deps.outbox.append(event);
  } catch (error) {
    deps.log.error({ err: error, eventId: event.eventId }, 'usage event could not be written to the outbox');
  }
}
