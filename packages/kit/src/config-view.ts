import type { config } from '@gw/proto';
import { fromModelLimitsMessage } from './model-limits.js';

/**
 * The `configs` object of GET /x-config from the contract's ConfigView: mapper keys, RESOURCES
 * (`{ path: true }`) and MODEL_LIMITS as objects, MODEL_FAILOVER as `{ pattern: [backups] }`,
 * PRICING and the mail settings as strings. The edge answers with it; the config service uses it
 * only to fill the deprecated `configs_json` (docs/adr/0006-typed-contract-fields.md).
 */
export function configViewObject(view: config.ConfigView): Record<string, unknown> {
  return {
    MODEL_MAPPER: Object.fromEntries(view.modelMapper.map(({ pattern, model }) => [pattern, model])),
    MODEL_FAILOVER: Object.fromEntries(view.modelFailover.map(({ pattern, backups }) => [pattern, backups])),
    LEVEL_MAPPER: Object.fromEntries(view.levelMapper.map(({ pattern, level }) => [pattern, level])),
    SWITCH_OVER: Object.fromEntries(
      view.switchOver.map(({ level, backupLevel }) => [String(level), backupLevel]),
    ),
    RESOURCES: Object.fromEntries(view.resources.map((path) => [path, true])),
    MODEL_LIMITS: view.modelLimits ? fromModelLimitsMessage(view.modelLimits) : {},
    PRICING: view.pricing,
    SVC_MAIL: view.svcMail,
    EMAIL_SMTP: view.emailSmtp,
    EMAIL_PORT: view.emailPort,
    EMAIL_AUTH: view.emailAuth,
    EMAIL_PASS: view.emailPass,
    EMAIL_TLS: view.emailTls,
  };
}
