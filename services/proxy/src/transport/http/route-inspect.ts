import type { IncomingMessage } from 'node:http';
import {
  AppError,
  CALLER_HEADER,
  decodeCaller,
  ErrorCode,
  INTERNAL_TOKEN_HEADER,
  keyModelField,
  sameSecret,
  type CallerIdentity,
} from '@gw/kit';
import type { ProxyDeps } from '../../deps.js';
import { planRoute, RoundRobin } from '../../domain/route-plan.js';
import type { HttpExchange } from './exchange.js';
import { header } from './request-body.js';

/**
 * `GET /internal/route?model=…` (the edge's owner-only `GET /x-route`): the routing decision for
 * the caller identity in the headers, without calling upstream and without moving round robin.
 * 1 trust the edge · 2 the plan a call would get (the relay's own planRoute, on a throwaway
 * cursor) · 3 describe it and every candidate key with its state.
 */
export async function inspectRoute(deps: ProxyDeps, { req, res }: HttpExchange): Promise<void> {
  // 1 Only the edge may ask.
  const caller = trustedCaller(req, deps.config.GW_INTERNAL_TOKEN);
  const model = new URL(req.url ?? '/', 'http://proxy').searchParams.get('model') ?? '';
  if (!model) {
    throw new AppError(ErrorCode.InvalidRequest, 'model: is required');
  }

  // 2 The same plan a call would get.
  const pool = await deps.keys.get(caller.ownerId).catch(() => {
    throw new AppError(ErrorCode.Unavailable, 'the key pool could not be loaded');
  });
  const state = await deps.health.state(caller.ownerId);
  const planned = planRoute(pool, caller, model, state.sleeping, new RoundRobin(), state.switched);
  const { plan } = planned;
  const candidateLevels = new Set(plan.candidateLevels);

  // 3 Every key of every Level the request could reach, with its state (asleep as a key, or for
  // the mapped model only).
  const keys = pool.keys
    .filter((key) => candidateLevels.has(key.level))
    .map((key) => {
      const sleep =
        state.sleepDetails.get(key.id) ?? state.sleepDetails.get(keyModelField(key.id, plan.modelMapped));
      return {
        ID: Number(key.id),
        Name: key.name,
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
      MappedModel: plan.modelMapped,
      Level: plan.level ?? null,
      Levels: plan.levels,
      SwitchedLevels: [...state.switched].filter((level) => candidateLevels.has(level)),
      FailoverModels: plan.failoverModels,
      Routable: planned.ok,
      ...(planned.ok ? {} : { Reason: planned.reason, Message: planned.message }),
      Steps: plan.steps.map((step) => ({
        Model: step.model,
        Level: step.level,
        Keys: step.keys.map((key) => Number(key.id)),
      })),
      Keys: keys,
    }),
  );
}

/**
 * Only the edge may ask: the internal token first, then the caller identity the edge
 * authenticated.
 */
function trustedCaller(req: IncomingMessage, internalToken: string): CallerIdentity {
  const token = header(req, INTERNAL_TOKEN_HEADER);
  if (!token || !sameSecret(token, internalToken)) {
    throw new AppError(ErrorCode.Unauthenticated, 'internal token missing or wrong');
  }
  const caller = decodeCaller(header(req, CALLER_HEADER));
  if (!caller) {
    throw new AppError(ErrorCode.Unauthenticated, 'caller identity missing');
  }
  return caller;
}
