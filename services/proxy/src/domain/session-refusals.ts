import { AppError, callerMayUseModel, ErrorCode, type CallerIdentity } from '@gw/kit';

/**
 * What an open realtime session tells its client when a rule stops it (the transport only sends
 * it as an `error` event): the codes are the domain's to choose, as for every other refusal.
 */

/** A `session.update` naming a model outside the caller's AllowModels, or nothing when allowed. */
export function sessionModelRefusal(caller: CallerIdentity, model: string): AppError | undefined {
  return callerMayUseModel(caller, model)
    ? undefined
    : new AppError(ErrorCode.ModelNotAllowed, `model ${model} is not allowed for this key`);
}

/** The session's token windows are spent: it ends. */
export function sessionTokensSpent(): AppError {
  return new AppError(ErrorCode.RateLimited, 'token rate limit reached: session ended');
}

/** The account changed so that it may no longer call (`why` says how): its sessions end. */
export function sessionEnded(why: string): AppError {
  return new AppError(ErrorCode.Forbidden, `session ended: ${why}`);
}
