import type { Logger } from '@gw/kit';
import type { events } from '@gw/proto';
import type { RealtimeSessions } from '../http/realtime-sessions.js';

/** `gw.account.changed.*`: an account change that revokes access ends its realtime sessions here. */
export function endSessionsOnAccountChange(
  sessions: RealtimeSessions,
  event: events.AccountChanged,
  log: Logger,
): void {
  const ended = sessions.accountChanged(String(event.accountId), event.reason);
  if (ended > 0) {
    log.info({ accountId: String(event.accountId), reason: event.reason, ended }, 'realtime sessions ended');
  }
}
