import { AppError, ErrorCode } from '@gw/kit';
import type { SleepingKey } from './model.js';
import type { KeypoolDeps } from './ports.js';

/** Sleep lengths after consecutive failures: 5, 15, then 30 minutes (and 30 from then on). */
export const SLEEP_STEPS_MS = [5 * 60_000, 15 * 60_000, 30 * 60_000] as const;

export function sleepLength(times: number): number {
  return SLEEP_STEPS_MS[Math.min(Math.max(times, 1), SLEEP_STEPS_MS.length) - 1] ?? 30 * 60_000;
}

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
  await deps.sleeps.put(input.ownerId, input.keyId, durationMs, times);
  return { keyId: input.keyId, remainingMs: durationMs, sleepTimes: times };
}
