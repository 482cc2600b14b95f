import type { Logger } from '@gw/kit';
import type { events } from '@gw/proto';
import type { ConsoleSessions } from './session-store.js';

/** gw.account.changed reasons after which an account's console sessions must not live on. */
const ENDS_SESSIONS = new Set(['rotated', 'disabled', 'deleted']);

/**
 * Ends an account's console sessions when its key rotated or it was disabled or deleted. Every
 * replica does it (the event reaches each); a missed event is caught when the session is next
 * used, which checks the key against accounts again.
 */
export function endSessionsOnChange(
  sessions: ConsoleSessions,
  event: events.AccountChanged,
  log: Logger,
): void {
  if (!ENDS_SESSIONS.has(event.reason)) {
    return;
  }
  sessions.endAll(event.accountId).catch((error: unknown) => {
    log.warn(
      { err: error, accountId: String(event.accountId) },
      'console sessions not ended on account change',
    );
  });
}
