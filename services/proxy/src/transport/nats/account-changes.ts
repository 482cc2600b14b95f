import { SUBJECTS, subscribeEvents, type Logger, type NatsConnection } from '@gw/kit';
import { events } from '@gw/proto';
import type { RealtimeSessions } from '../http/realtime-sessions.js';

/** `gw.account.changed.*`: an account change that revokes access ends its realtime sessions here. */
export function endSessionsOnAccountChanges(
  nc: NatsConnection,
  sessions: RealtimeSessions,
  log: Logger,
): { unsubscribe(): void } {
  return subscribeEvents(
    nc,
    SUBJECTS.accountChangedAll,
    events.AccountChanged,
    (event) => {
      const ended = sessions.accountChanged(String(event.accountId), event.reason);
      if (ended > 0) {
        log.info(
          { accountId: String(event.accountId), reason: event.reason, ended },
          'realtime sessions ended',
        );
      }
    },
    log,
  );
}
