import { AppError, ErrorCode, sleepLength } from '@gw/kit';
import type { SleepingKey } from './model.js';
import type { KeypoolDeps } from './ports.js';

/** Puts a key to sleep (the proxies call this after repeated failures). */
export async function sleepKey(
  deps: KeypoolDeps,
  input: { ownerId: bigint; keyId: bigint; durationMs: number },
): Promise<SleepingKey> {
  if (!(await deps.store.find(input.ownerId, input.keyId))) {
    throw new AppError(ErrorCode.NotFound, `key ${input.keyId} does not exist`);
  }
  if (!Number.isSafeInteger(input.durationMs) || input.durationMs < 0 || input.durationMs > 24 * 3_600_000) {
    throw new AppError(ErrorCode.InvalidRequest, 'duration must be from 0 to 24 hours');
  }
  const times = (await deps.sleeps.times(input.ownerId, input.keyId)) + 1;
  const durationMs = input.durationMs > 0 ? input.durationMs : sleepLength(times);
  await deps.sleeps.put(input.ownerId, input.keyId, durationMs, times, deps.clock.now());
  return { keyId: input.keyId, model: '', remainingMs: durationMs, sleepTimes: times };
}
