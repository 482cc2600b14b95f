import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import {
  AppError,
  ErrorCode,
  findAiEndpoint,
  UPSTREAM_KEY_HEADER,
  UPSTREAM_LEVEL_HEADER,
  type CallerIdentity,
} from '@gw/kit';
import { failureDeps, upstreamPolicy, type ProxyDeps } from '../../deps.js';
import { classifyStatus, FailureClass, parseRetryAfter } from '../../domain/key-health.js';
import type { PoolKey } from '../../domain/pool.js';
import { forwardableRequestHeaders, upstreamTarget } from '../../domain/providers.js';
import { recordFailure, switchBackCooledLevels } from '../../domain/record-failure.js';
import { parseRequest, upstreamBody, type ParsedRequest } from '../../domain/request.js';
import { assertResourceAllowed } from '../../domain/allowlists.js';
import { assertAdmitted, callWindows } from '../../domain/call-limits.js';
import { rateLimitHeaders, type LimitWindow } from '../../domain/limits.js';
import { planCall } from '../../domain/plan-call.js';
import type { RouteStep } from '../../domain/route-plan.js';
import { toUsageEvent, usageOfServedCall, type RelayedAnswer } from '../../domain/usage.js';
import { ClientState, readErrorBody, relayAnswer, relayError } from './answer.js';
import { header, readBody, trustedCaller } from './hop.js';
import { observeUpstream } from '../upstream/metrics.js';

/**
 * The proxy's hop of an AI call, top to bottom.
 * 1 trust the hop · 2 the endpoint (closed catalogue, resource allowlists) · 3 outbox bound ·
 * 4 read the request (exact parsing, model required) · 5 rate limits and the route · 6 try keys
 * until one answers (failover) · 7 relay the answer as it arrives · 8 emit usage (and count its
 * tokens).
 * A refusal before the answer starts is thrown as an AppError and answered in the spec's shape.
 */
export async function relay(deps: ProxyDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = Date.now();
  const log = deps.log;

  // The call's catalogue entry, looked up once: it names the route (a path outside the catalogue
  // stays unmatched) and is checked at step 2.
  const endpoint = findAiEndpoint(req.method ?? 'GET', (req.url ?? '/').split('?')[0] ?? '/');
  if (deps.access && endpoint) {
    deps.access.route = endpoint.path;
  }

  // 1 Only the edge may call: internal token, then the caller identity it authenticated.
  const caller = trustedCaller(req, deps.config.GW_INTERNAL_TOKEN);
  if (deps.access) {
    deps.access.accountId = caller.accountId;
  }

  // 2 Only catalogue endpoints, by their canonical path and their own method; never stored objects.
  if (!endpoint) {
    throw new AppError(ErrorCode.NotFound, 'no such endpoint');
  }
  const pool = await deps.keys.get(caller.ownerId).catch((error: unknown) => {
    log.error({ err: error, ownerId: caller.ownerId }, 'key pool unavailable');
    throw new AppError(ErrorCode.Unavailable, 'no upstream is available right now');
  });
  assertResourceAllowed(pool, caller, endpoint);

  // 3 Usage must have somewhere to go before upstream is called (docs/decisions.md §5).
  if (deps.outbox.isFull()) {
    log.error('usage outbox over its bound: refusing AI calls');
    throw new AppError(ErrorCode.Unavailable, 'usage recording is backed up; try again shortly');
  }

  // 4 Read the request: bounded, in time, parsed exactly; the model is required where named.
  const contentType = header(req, 'content-type') ?? '';
  const limit =
    endpoint.body === 'multipart' ? deps.config.PROXY_UPLOAD_LIMIT_BYTES : deps.config.PROXY_JSON_LIMIT_BYTES;
  const raw = await readBody(req, limit, deps.config.PROXY_BODY_TIMEOUT_MS);
  const request = await parseRequest(endpoint, contentType, raw);
  const client = new ClientState(res);

  // 5 Every rate-limit window of the call checked and counted, and the pool's key state read, side
  // by side in Redis; then the route from memory. A call refused before any upstream costs nothing.
  const admittedAt = Date.now();
  const windows = callWindows(caller, pool, deps.defaultModelLimits, request.model);
  const [state, admission] = await Promise.all([
    deps.health.state(caller.ownerId),
    deps.limiter.admit(windows, admittedAt),
  ]);
  assertAdmitted(admission, admittedAt);
  for (const [name, value] of Object.entries(rateLimitHeaders(admission.windows, admittedAt))) {
    res.setHeader(name, value);
  }
  switchBackCooledLevels(deps, caller.ownerId, state);
  const plan = await planCall(
    {
      health: deps.health,
      roundRobin: deps.roundRobin,
      probeIntervalMs: deps.config.PROXY_PROBE_INTERVAL_MS,
    },
    pool,
    caller,
    request.model,
    state,
  ).catch((error: unknown) => {
    void deps.limiter.refund(windows, admittedAt);
    throw error;
  });

  // 6 Failover: each key of each step in turn until one answers with something not its fault.
  const failedHere = new Set<string>();
  const failures: FailureClass[] = [];
  const extraHeaders = forwardableRequestHeaders(req.headers);
  const timeoutMs = request.stream
    ? deps.config.PROXY_UPSTREAM_TIMEOUT_MS
    : deps.config.PROXY_ANSWER_TIMEOUT_MS;
  const failed = async (key: PoolKey, step: RouteStep, failure: FailureClass, retryAfterMs?: number) => {
    failedHere.add(key.id);
    failures.push(failure);
    await recordFailure(failureDeps(deps), {
      pool,
      state,
      key,
      level: step.level,
      model: step.model,
      failure,
      retryAfterMs,
    });
  };
  for (const step of plan.steps) {
    for (const key of step.keys) {
      if (client.isGone()) {
        return;
      }
      if (failedHere.has(key.id)) {
        continue;
      }
      const target = upstreamTarget(key, endpoint.path, '', step.model, deps.providers.defaults);
      if (target.needsAccessToken) {
        try {
          target.headers.authorization = `Bearer ${await deps.providers.accessToken(key)}`;
        } catch (error) {
          log.warn({ keyId: key.id, err: error }, 'no access token for the key');
          await failed(key, step, FailureClass.Auth);
          continue;
        }
      }
      // A client that leaves now does not cancel a call upstream would bill anyway: it runs on,
      // bounded by the usage grace, and is charged (docs/decisions.md §2).
      const cancel = new AbortController();
      let grace: NodeJS.Timeout | undefined;
      client.onGone = () => {
        grace = setTimeout(() => cancel.abort(), deps.config.PROXY_USAGE_GRACE_MS);
      };
      const { body, contentType: bodyType } = upstreamBody(request, step.model, contentType);
      if (deps.access) {
        deps.access.keyId = key.id;
        deps.access.keyLevel = step.level;
      }
      const sentAt = performance.now();
      const attempt = await deps.upstream.send(
        {
          ...target,
          method: endpoint.method,
          body,
          extraHeaders: bodyType ? { ...extraHeaders, 'content-type': bodyType } : extraHeaders,
        },
        timeoutMs,
        cancel.signal,
        upstreamPolicy(deps, pool),
      );
      clearTimeout(grace);
      if (!attempt.ok) {
        observeUpstream(key.id, step.level, attempt.failure, sentAt);
        if (client.isGone()) {
          return;
        }
        log.warn(
          { keyId: key.id, level: step.level, failure: attempt.failure, err: attempt.error },
          'upstream attempt failed',
        );
        await failed(key, step, attempt.failure);
        continue;
      }
      const status = attempt.response.statusCode ?? 502;
      if (status >= 400) {
        const errorBody = await readErrorBody(attempt.response);
        const outcome = classifyStatus(status, errorBody.toString('utf8'));
        observeUpstream(
          key.id,
          step.level,
          outcome.kind === 'failure' ? outcome.class : outcome.kind,
          sentAt,
        );
        if (outcome.kind === 'failure') {
          log.warn(
            { keyId: key.id, level: step.level, status, failure: outcome.class },
            'upstream answered with a failure',
          );
          await failed(
            key,
            step,
            outcome.class,
            parseRetryAfter(attempt.response.headers['retry-after'], Date.now()),
          );
          if (client.isGone()) {
            return;
          }
          continue;
        }
        // The client's own mistake: relayed as upstream wrote it, never anyone's failure.
        if (!client.isGone()) {
          nameUpstream(res, key, step);
          relayError(res, attempt.response, errorBody);
        }
        return;
      }
      observeUpstream(key.id, step.level, 'ok', sentAt);
      void deps.health.recordSuccess(caller.ownerId, key.id);
      nameUpstream(res, key, step);

      // 7 Relay: status and headers now, then every chunk as it arrives; metered on the way.
      const relayed = await relayAnswer(
        {
          idleMs: deps.config.PROXY_STREAM_IDLE_MS,
          usageGraceMs: deps.config.PROXY_USAGE_GRACE_MS,
          hideUsageChunk: request.injectUsage,
          log,
        },
        attempt.response,
        () => attempt.abort(),
        res,
        client,
      );

      // 8 Usage: one event per served call, into the durable outbox before anything else.
      if (endpoint.metering !== 'none') {
        await emitUsage(deps, { caller, request, step, key, status, relayed, started, windows });
      }
      return;
    }
  }
  throw failures.every((failure) => failure === FailureClass.RateLimit)
    ? new AppError(ErrorCode.RateLimited, 'every upstream key is rate limited; try again later')
    : failures.every((failure) => failure === FailureClass.Model)
      ? new AppError(ErrorCode.NotFound, `model ${plan.modelMapped} is not available from any upstream key`)
      : new AppError(ErrorCode.Unavailable, 'no upstream could serve this request');
}

/** For the edge's access line (it removes both headers before the client sees the answer). */
function nameUpstream(res: ServerResponse, key: PoolKey, step: RouteStep): void {
  res.setHeader(UPSTREAM_KEY_HEADER, key.id);
  res.setHeader(UPSTREAM_LEVEL_HEADER, String(step.level));
}

/** Step 8: builds the UsageRecorded event and appends it to the outbox. */
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
    windows: LimitWindow[];
  },
): Promise<void> {
  const { usage, partial, estimated } = usageOfServedCall(call.request, call.relayed);
  void deps.limiter.addTokens(call.windows, usage.promptTokens + usage.completionTokens, Date.now());
  const json = call.request.json ?? {};
  const formSize = call.request.form?.find((part) => part.name === 'size')?.data.toString('utf8');
  const event = toUsageEvent({
    accountId: call.caller.accountId,
    ownerId: call.caller.ownerId,
    modelRequested: call.request.model,
    modelServed: call.step.model,
    keyId: call.key.id,
    level: call.step.level,
    path: call.request.endpoint.path,
    status: call.status,
    usage,
    imageSize: typeof json.size === 'string' ? json.size : (formSize ?? ''),
    latencyMs: Date.now() - call.started,
    partial,
    estimated,
  });
  try {
    await deps.outbox.append(event);
  } catch (error) {
    deps.log.error({ err: error, eventId: event.eventId }, 'usage event could not be written to the outbox');
  }
}
