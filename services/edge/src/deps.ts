import type { AuthDeps, PromiseClient } from '@gw/kit';
import type { accounts, billing, config as configPb, keypool, news } from '@gw/proto';
import type { Config } from './config.js';
import type { ConsoleSessions } from './console/session-store.js';
import type { HealthReport } from './health.js';

/** Everything a route handler may use, key authentication included; built once in main.ts. */
export interface EdgeDeps extends AuthDeps {
  config: Config;
  /** Console sessions (Redis, shared by every edge replica). */
  sessions: ConsoleSessions;
  accounts: PromiseClient<accounts.AccountsServiceClient>;
  keypool: PromiseClient<keypool.KeypoolServiceClient>;
  configs: PromiseClient<configPb.ConfigServiceClient>;
  news: PromiseClient<news.NewsServiceClient>;
  billing: PromiseClient<billing.BillingServiceClient>;
  health: () => Promise<HealthReport>;
}
