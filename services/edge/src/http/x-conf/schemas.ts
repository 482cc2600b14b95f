import { z } from 'zod';
import { modelLimitsObject, usd } from '../../openapi/shared-schemas.js';
import { CONFIG_MAPS, CONFIG_VALUE_MAX, CONFIG_VALUE_TOO_LONG } from '../x-config/schemas.js';
import { keyRecordSchema } from '../x-keys/schemas.js';

/** A boolean, or the strings "true"/"false" (the console sends both). */
const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]);
const mapperOps = z.string().max(CONFIG_VALUE_MAX, CONFIG_VALUE_TOO_LONG);

/** POST /x-conf: every field optional, at least one; unknown fields refused. */
export const postConfBody = z
  .strictObject({
    LoadKeys: flag.optional(),
    LogEnable: flag.optional(),
    SaveCache: flag.optional(),
    Resources: z
      .string()
      .max(64 * 1024)
      .optional(),
    LevelMapper: mapperOps.optional(),
    ModelMapper: mapperOps.optional(),
    ModelFailover: mapperOps.optional(),
    ModelLimits: z
      .union([z.string().max(CONFIG_VALUE_MAX, CONFIG_VALUE_TOO_LONG), z.record(z.string(), z.unknown())])
      .optional(),
    DelKeys: flag.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'nothing to apply' });
const { levelMap, modelMap, failoverMap, resourcesMap } = CONFIG_MAPS;

/** GET /x-conf: the owner's overview. */
export const confOverviewResponse = z.object({
  Resources: resourcesMap,
  LevelMapper: levelMap,
  ModelMapper: modelMap,
  ModelFailover: failoverMap,
  ModelLimits: modelLimitsObject,
  SwitchOver: levelMap,
  SleepingKeys: z.array(
    z.object({
      ...keyRecordSchema.shape,
      Model: z.string().optional().meta({
        description: 'Present when the key sleeps for this model only (it was refused it repeatedly)',
      }),
      SleepTimes: z.number().int(),
      SleepRemaining: z.number().int().meta({ description: 'Seconds' }),
      WakeAt: z.string(),
    }),
  ),
  DisabledKeys: z.array(keyRecordSchema),
  UserMinBalance: usd,
  UserApiBalance: usd,
  LogEnable: z.boolean().meta({
    description:
      'The system-wide switch of the per-request access lines of every edge and proxy (root sets it with POST LogEnable)',
  }),
});

const echoedFlag = z.enum(['true', 'false']);

/** POST /x-conf: what was applied, each config field as it is stored now. */
export const confAppliedResponse = z.object({
  success: z.literal(true),
  Resources: resourcesMap.optional(),
  LevelMapper: levelMap.optional(),
  ModelMapper: modelMap.optional(),
  ModelFailover: failoverMap.optional(),
  ModelLimits: modelLimitsObject.optional(),
  WokenKeys: z.number().int().optional(),
  LoadKeys: echoedFlag.optional(),
  LogEnable: echoedFlag.optional(),
  SaveCache: echoedFlag.optional(),
  DelKeys: echoedFlag.optional(),
});
