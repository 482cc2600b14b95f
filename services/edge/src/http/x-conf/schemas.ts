import { z } from 'zod';
import { CONFIG_VALUE_MAX, CONFIG_VALUE_TOO_LONG } from '../x-config/schemas.js';

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
