import { events, type accounts } from '@gw/proto';
import type { z } from 'zod';
import type { authEnv, serviceEnv } from '../config.js';
import { AppError, ErrorCode } from '../errors.js';
import type { PromiseClient } from '../grpc-client.js';
import type { Logger } from '../log.js';
import { subscribeEvents, type NatsConnection } from '../nats.js';
import { SUBJECTS } from '../subjects.js';
import { AuthCache } from './auth-cache.js';
import type { AuthDeps } from './authenticate.js';
import { FailedAuthLimiter } from './failed-auth.js';
import { KeyUseRecorder } from './key-use.js';

/** The variables key authentication reads: `authEnv` and the internal token. */
type KeyAuthenticationConfig = z.infer<z.ZodObject<typeof authEnv>> &
  Pick<z.infer<z.ZodObject<typeof serviceEnv>>, 'GW_INTERNAL_TOKEN'>;

/**
 * Authentication of API keys on a public port, over accounts: the cache of keys (emptied by
 * gw.account.changed on every replica), key last-use times sent in batches, and the
 * failed-authentication limit. `onAccountChanged` sees each change after the cache dropped it.
 * `close()` stops listening and sends the last key uses.
 */
export function startKeyAuthentication(options: {
  accounts: PromiseClient<accounts.AccountsServiceClient>;
  nc: NatsConnection;
  log: Logger;
  config: KeyAuthenticationConfig;
  onAccountChanged?: (event: events.AccountChanged) => void;
}): { auth: AuthDeps; close(): Promise<void> } {
  const { accounts: accountsClient, config, log } = options;
  const cache = new AuthCache(
    async (keyHash) => {
      try {
        return (await accountsClient.authenticateKey({ keyHash })).account;
      } catch (error) {
        if (error instanceof AppError && error.code === ErrorCode.NotFound) {
          return undefined;
        }
        throw error;
      }
    },
    config.GW_AUTH_CACHE_TTL_MS,
    Date.now,
    config.GW_AUTH_UNKNOWN_TTL_MS,
  );
  const keyUses = new KeyUseRecorder(
    async (uses) => {
      await accountsClient.recordKeyUse({
        uses: uses.map((use) => ({ ...use, usedAt: use.usedAt.toISOString() })),
      });
    },
    log,
    config.GW_KEY_USE_FLUSH_MS,
  );
  keyUses.start();
  const changes = subscribeEvents(
    options.nc,
    SUBJECTS.accountChangedAll,
    events.AccountChanged,
    (event) => {
      // An `ancestor_*` event follows the ancestor's own, which has already dropped the subtree.
      const subtree = !event.reason.startsWith('ancestor_');
      cache.invalidateAccount(event.accountId, event.keyHash || undefined, subtree);
      options.onAccountChanged?.(event);
    },
    log,
  );
  return {
    auth: {
      cache,
      keyUses,
      failedAuth: new FailedAuthLimiter(config.GW_AUTH_FAILURES_PER_MINUTE),
      trustedProxies: config.GW_TRUSTED_PROXIES,
      internalToken: config.GW_INTERNAL_TOKEN,
    },
    async close() {
      changes.unsubscribe();
      await keyUses.stop();
    },
  };
}
