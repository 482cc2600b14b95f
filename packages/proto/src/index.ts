// Generated contracts, re-exported under one name per proto package (`common` and `errorDetails`
// hold messages several services carry). Never edit src/gen by hand.
export * as common from './gen/gw/common/v1/limits.js';
export * as errorDetails from './gen/gw/common/v1/error_details.js';
export * as accounts from './gen/gw/accounts/v1/accounts.js';
export * as billing from './gen/gw/billing/v1/billing.js';
export * as keypool from './gen/gw/keypool/v1/keypool.js';
export * as config from './gen/gw/config/v1/config.js';
export * as news from './gen/gw/news/v1/news.js';
export * as mailer from './gen/gw/mailer/v1/mailer.js';
export * as events from './gen/gw/events/v1/events.js';
export * as health from './gen/grpc/health/v1/health.js';
