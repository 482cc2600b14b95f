import { realtimeErrorEvent, type Logger } from '@gw/kit';
import type { events } from '@gw/proto';
import type WebSocket from 'ws';
import { sessionEnded } from '../../domain/session-refusals.js';

/** Account changes that end the account's open sessions (every reason but a plain update). */
const ENDING_REASONS: Record<string, string> = {
  rotated: 'the key of this session was rotated',
  deleted: 'the account was deleted',
  disabled: 'the account was disabled',
  suspended: 'the account was suspended',
  spend_blocked: "the account's monthly HardLimit is reached",
  daily_limit: "the account's DailyLimit for today is reached",
  balance_low: 'the balance reached the floor for AI calls',
  // accounts tells each account below one disabled or suspended that it is off with it.
  ancestor_disabled: 'an account above this one was disabled',
  ancestor_suspended: 'an account above this one was suspended',
};

/** Where open realtime sessions are kept so an account change can end them. */
export interface SessionRegistry {
  open(accountId: string, client: WebSocket): void;
  /** Ends the account's sessions when the change calls for it; answers how many were ended. */
  accountChanged(accountId: string, reason: string): number;
}

/**
 * The realtime sessions open on this replica, by account, so an account change announced on
 * `gw.account.changed.<id>` ends them within a second: an `error` event saying why, then a close.
 */
export class RealtimeSessions implements SessionRegistry {
  private readonly byAccount = new Map<string, Set<WebSocket>>();

  open(accountId: string, client: WebSocket): void {
    let sessions = this.byAccount.get(accountId);
    if (!sessions) {
      sessions = new Set();
      this.byAccount.set(accountId, sessions);
    }
    sessions.add(client);
    client.once('close', () => {
      sessions.delete(client);
      if (sessions.size === 0) {
        this.byAccount.delete(accountId);
      }
    });
  }

  /** Ends the account's sessions when the change calls for it; answers how many were ended. */
  accountChanged(accountId: string, reason: string): number {
    const why = ENDING_REASONS[reason];
    const sessions = this.byAccount.get(accountId);
    if (!why || !sessions) {
      return 0;
    }
    for (const client of sessions) {
      client.send(realtimeErrorEvent(sessionEnded(why)));
      client.close(1008, 'session ended');
    }
    return sessions.size;
  }

  get size(): number {
    return [...this.byAccount.values()].reduce((total, sessions) => total + sessions.size, 0);
  }
}

/** `gw.account.changed.*`: an account change that revokes access ends its realtime sessions here. */
export function endSessionsOnAccountChange(
  sessions: SessionRegistry,
  event: events.AccountChanged,
  log: Logger,
): void {
  const ended = sessions.accountChanged(String(event.accountId), event.reason);
  if (ended > 0) {
    log.info({ accountId: String(event.accountId), reason: event.reason, ended }, 'realtime sessions ended');
  }
}
