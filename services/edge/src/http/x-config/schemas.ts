import { AppError, ErrorCode, formatMapper } from '@gw/kit';
import { z } from 'zod';
import { modelLimitsObject } from '../../openapi/shared-schemas.js';

/** Every configuration value is at most 128 KB (PRICING: the spec's bound; the others the same). */
export const CONFIG_VALUE_MAX = 128 * 1024;
export const CONFIG_VALUE_TOO_LONG = `must be at most ${CONFIG_VALUE_MAX} characters (128 KB)`;

/**
 * PUT|POST /x-config: a map of CONFIG_KEY to a string value, or to the object GET /x-config
 * shows for that key, so what GET answers can be sent back unchanged. Which keys are allowed and
 * what each value means is the config service's rule.
 */
export const updateConfigBody = z
  .record(
    z.string().max(64, 'a configuration key has at most 64 characters'),
    z.union([z.string().max(CONFIG_VALUE_MAX, CONFIG_VALUE_TOO_LONG), z.record(z.string(), z.unknown())]),
  )
  .refine((body) => Object.keys(body).length <= 32, 'at most 32 configuration keys at once');

const mapperValue = z.union([z.string(), z.number(), z.array(z.string())]);

/** The object forms of GET /x-config, written back as the text the config service parses. */
function fromObject(key: string, value: Record<string, unknown>): string {
  switch (key) {
    case 'MODEL_LIMITS':
      return JSON.stringify(value);
    case 'RESOURCES':
      return Object.keys(value)
        .filter((path) => value[path] === true)
        .join(',');
    case 'MODEL_MAPPER':
    case 'MODEL_FAILOVER':
    case 'LEVEL_MAPPER':
    case 'SWITCH_OVER':
      return formatMapper(
        Object.entries(value).map(([pattern, target]) => {
          const parsed = mapperValue.safeParse(target);
          if (!parsed.success) {
            throw new AppError(
              ErrorCode.InvalidRequest,
              `${key}.${pattern}: must be a model, a level or a list`,
              {
                field: key,
              },
            );
          }
          return [pattern, Array.isArray(parsed.data) ? parsed.data.join('|') : String(parsed.data)] as const;
        }),
      );
    default:
      throw new AppError(ErrorCode.InvalidRequest, `${key}: must be a string`, { field: key });
  }
}

/** Values as the config service takes them: strings in each key's own format. */
export function configValues(body: z.infer<typeof updateConfigBody>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => [
      key,
      typeof value === 'string' ? value : fromObject(key, value),
    ]),
  );
}

/** DELETE /x-config. */
export const deleteConfigBody = z.strictObject({ keys: z.array(z.string().max(64)).min(1).max(64) });

const levelMap = z.record(z.string(), z.number().int());
const modelMap = z.record(z.string(), z.string());
const failoverMap = z.record(z.string(), z.array(z.string()));
const resourcesMap = z.record(z.string(), z.literal(true));

/** The `configs` object (the kit's `configViewObject`); mail secrets are masked. */
const configsSchema = z
  .object({
    MODEL_MAPPER: modelMap,
    MODEL_FAILOVER: failoverMap,
    LEVEL_MAPPER: levelMap,
    SWITCH_OVER: levelMap,
    RESOURCES: resourcesMap,
    MODEL_LIMITS: modelLimitsObject,
    PRICING: z.string(),
    SVC_MAIL: z.string(),
    EMAIL_SMTP: z.string(),
    EMAIL_PORT: z.string(),
    EMAIL_AUTH: z.string(),
    EMAIL_PASS: z.string(),
    EMAIL_TLS: z.string(),
  })
  .meta({ id: 'OwnerConfig' });

/** GET, PUT, POST and DELETE /x-config. */
export const configResponse = z.object({
  success: z.literal(true),
  oid: z.number().int(),
  configs: configsSchema,
});

/** The config maps as /x-conf shows them. */
export const CONFIG_MAPS = { levelMap, modelMap, failoverMap, resourcesMap };
