import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '@gw/kit';
import {
  failoverModels,
  levelOf,
  mapModel,
  planRoute,
  RoundRobin,
  switchOverChain,
} from './domain/route-plan.js';
import { sendError, trustedCaller, type RelayDeps } from './relay.js';

/**
 * `GET /internal/route?model=…` (the edge's owner-only `GET /x-route`): the routing decision for
 * the caller identity in the headers, without calling upstream and without moving round robin.
 * 1 trust the hop · 2 plan from memory and the shared key state · 3 describe every candidate key.
 */
export async function inspectRoute(
  deps: RelayDeps,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  // 1 Only the edge may ask.
  const caller = trustedCaller(req, deps.config.GW_INTERNAL_TOKEN);
  if (caller === 'bad_token' || caller === 'no_caller') {
    sendError(
      res,
      401,
      'authentication_error',
      ErrorCode.Unauthenticated,
      'internal token or caller identity missing',
    );
    return;
  }
  const model = new URL(req.url ?? '/', 'http://proxy').searchParams.get('model') ?? '';
  if (!model) {
    sendError(res, 400, 'invalid_request_error', ErrorCode.InvalidRequest, 'model: is required');
    return;
  }

  // 2 The same plan a call would get (on a throwaway cursor).
  let pool;
  try {
    pool = await deps.keys.get(caller.ownerId);
  } catch {
    sendError(res, 503, 'api_error', ErrorCode.Unavailable, 'the key pool could not be loaded');
    return;
  }
  const state = await deps.health.state(caller.ownerId);
  const mapped = mapModel(model, caller.modelMapper, pool.config.MODEL_MAPPER ?? '');
  const level = levelOf(pool, mapped);
  const planned = planRoute(pool, caller, model, state.sleeping, new RoundRobin(), state.switched);
  const levels = level === undefined ? [] : [level, ...switchOverChain(pool, level)];
  const failover = failoverModels(pool, mapped);
  const candidateLevels = new Set([
    ...levels,
    ...failover.map((backup) => levelOf(pool, backup)).filter((l): l is number => l !== undefined),
  ]);

  // 3 Every key of every Level the request could reach, with its state.
  const keys = pool.keys
    .filter((key) => candidateLevels.has(key.level))
    .map((key) => {
      const sleep = state.sleepDetails.get(key.id);
      return {
        ID: Number(key.id),
        Level: key.level,
        Provider: key.provider,
        ProviderType: key.type,
        State: !key.active ? 'disabled' : sleep ? 'sleeping' : 'active',
        ...(sleep && key.active
          ? { WakeAt: new Date(sleep.until).toISOString(), LastFailure: sleep.failure }
          : {}),
      };
    });
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(
    JSON.stringify({
      Model: model,
      MappedModel: mapped,
      Level: level ?? null,
      Levels: levels,
      SwitchedLevels: [...state.switched].filter((l) => candidateLevels.has(l)),
      FailoverModels: failover,
      Routable: planned.ok,
      ...(planned.ok ? {} : { Reason: planned.reason, Message: planned.message }),
      Steps: planned.ok
        ? planned.plan.steps.map((step) => ({
            Model: step.model,
            Level: step.level,
            Keys: step.keys.map((key) => Number(key.id)),
          }))
        : [],
      Keys: keys,
    }),
  );
}
