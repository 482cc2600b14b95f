import { AppError, ErrorCode, excerpt } from '@gw/kit';
import type { AccountsDeps, AuditEntry } from './ports/deps.js';

/**
 * Runs one management operation and, when it is refused or fails, records that in the operator's
 * operation log with status `failed` (never a secret: the reason is the refusal's own message,
 * shortened, or "internal error"), then rethrows. The entry names no target: a refused request
 * may name an account the operator may not know about.
 */
export async function recordingFailure<T>(
  deps: Pick<AccountsDeps, 'events'>,
  entry: Pick<AuditEntry, 'action' | 'operatorId' | 'ipAddress'> & { attempt: string },
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof AppError && error.code === ErrorCode.Unauthenticated)) {
      const reason = error instanceof AppError ? excerpt(error.message, 200) : 'internal error';
      deps.events.audit({
        action: entry.action,
        operatorId: entry.operatorId,
        targetId: 0n,
        details: `${entry.attempt} refused: ${reason}`,
        ipAddress: entry.ipAddress,
        status: 'failed',
      });
    }
    throw error;
  }
}
