import {
  AppError,
  ErrorCode,
  type AiEndpoint,
  type CallerIdentity,
  type Logger,
  type RequestDetails,
} from '@gw/kit';
import { assertResourceAllowed } from '../allowlists.js';
import type { OpenedCall } from './call.js';
import type { CallDeps } from '../ports/deps.js';

/**
 * Step 1 of every AI call, before its request is read: the endpoint is in the closed catalogue,
 * the owner's pool is at hand, the owner's RESOURCES and the account's (and its ancestors')
 * Resources allow the endpoint, and usage has somewhere to go (docs/decisions.md §5).
 */
export async function openCall(
  deps: CallDeps,
  input: {
    endpoint: AiEndpoint | undefined;
    caller: CallerIdentity;
    details: RequestDetails;
    requestId: string;
    log: Logger;
  },
): Promise<OpenedCall> {
  const { endpoint, caller, details, requestId, log } = input;
  details.accountId = caller.accountId;
  if (!endpoint) {
    throw new AppError(ErrorCode.NotFound, 'no such endpoint');
  }
  const pool = await deps.keys.get(caller.ownerId).catch((error: unknown) => {
    log.error({ err: error, ownerId: caller.ownerId }, 'key pool unavailable');
    throw new AppError(ErrorCode.Unavailable, 'no upstream is available right now');
  });
  assertResourceAllowed(pool, caller, endpoint);
  if (deps.outbox.isFull()) {
    log.error('usage outbox over its bound: refusing AI calls');
    throw new AppError(ErrorCode.Unavailable, 'usage recording is backed up; try again shortly');
  }
  return { endpoint, caller, pool, details, requestId, log, startedAt: Date.now() };
}
