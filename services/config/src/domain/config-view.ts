import { toModelLimitsMessage } from '@gw/kit';
import type { config } from '@gw/proto';
import { SECRET_MASK } from './config-values.js';
import { mapperEntries } from './mapper-values.js';

/**
 * The stored values as GET /x-config shows them, typed, every key with its default filled in.
 * Mapper entries keep their stored order; PRICING and the mail settings stay text; EMAIL_PASS
 * is masked whatever the caller may read.
 */
export function configView(values: Readonly<Record<string, string>>): config.ConfigView {
  const entries = (key: string) => [...mapperEntries(values[key] ?? '')];
  const limits = values.MODEL_LIMITS ?? '';
  return {
    modelMapper: entries('MODEL_MAPPER').map(([pattern, model]) => ({ pattern, model })),
    modelFailover: entries('MODEL_FAILOVER').map(([pattern, backups]) => ({
      pattern,
      backups: backups.split('|'),
    })),
    levelMapper: entries('LEVEL_MAPPER').map(([pattern, level]) => ({ pattern, level: Number(level) })),
    switchOver: entries('SWITCH_OVER').map(([level, backup]) => ({
      level: Number(level),
      backupLevel: Number(backup),
    })),
    resources: (values.RESOURCES ?? '').split(',').filter(Boolean),
    modelLimits: toModelLimitsMessage(limits === '' ? {} : (JSON.parse(limits) as Record<string, unknown>)),
    pricing: values.PRICING ?? '',
    svcMail: values.SVC_MAIL ?? '',
    emailSmtp: values.EMAIL_SMTP ?? '',
    emailPort: values.EMAIL_PORT ?? '',
    emailAuth: values.EMAIL_AUTH ?? '',
    emailPass: (values.EMAIL_PASS ?? '') === '' ? '' : SECRET_MASK,
    emailTls: values.EMAIL_TLS ?? '',
  };
}
