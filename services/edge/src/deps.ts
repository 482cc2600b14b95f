import type { AddressList, PromiseClient } from '@gw/kit';
import type { accounts, billing, config as configPb, keypool, news } from '@gw/proto';
import type { AuthCache } from './auth/auth-cache.js';
import type { FailedAuthLimiter } from './auth/failed-auth.js';
import type { KeyUseRecorder } from './auth/key-use.js';
import type { Config } from './config.js';
import type { ConsoleSessions } from './console/session-store.js';
import type { HealthReport } from './health.js';

/** Everything a route handler may use; built once in main.ts. */
export interface EdgeDeps {
  config: Config;
  cache: AuthCache;
  keyUses: KeyUseRecorder;
  failedAuth: FailedAuthLimiter;
  trustedProxies: AddressList;
  /** Console sessions (Redis, shared by every edge replica). */
  sessions: ConsoleSessions;
  accounts: PromiseClient<accounts.AccountsServiceClient>;
  keypool: PromiseClient<keypool.KeypoolServiceClient>;
  configs: PromiseClient<configPb.ConfigServiceClient>;
  news: PromiseClient<news.NewsServiceClient>;
  billing: PromiseClient<billing.BillingServiceClient>;
  health: () => Promise<HealthReport>;
}
