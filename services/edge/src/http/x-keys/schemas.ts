import { AppError, ErrorCode } from '@gw/kit';
import { z } from 'zod';
import { pageParam, sizeParam } from '../paging.js';

/** GET /x-keys query: repeated keys (arrays) and unknown shapes are refused. */
export const listKeysQuery = z.object({
  id: z
    .string()
    .regex(/^\d{1,19}$/, 'id must be a key id')
    .optional(),
  level: z.string().regex(/^\d$/, 'level must be an integer from 0 to 9').transform(Number).optional(),
  provider: z.string().min(1).max(2048).optional(),
  page: pageParam.optional(),
  size: sizeParam.optional(),
});

/** POST /x-keys. `config` (lower case) is accepted as another name of `Config`. */
const configObject = z.record(z.string(), z.unknown());

export const createKeyBody = z
  .strictObject({
    SecretKey: z.string().max(8192),
    Name: z.string().max(256).optional(),
    Level: z.number().int(),
    Provider: z.string().max(2048),
    Status: z.boolean().optional(),
    Config: configObject.optional(),
    config: configObject.optional(),
  })
  .refine((body) => body.Config === undefined || body.config === undefined, {
    message: 'send Config or config, not both',
    path: ['Config'],
  });

/** PUT|POST /x-keys/{id}: the fields to change. */
export const updateKeyBody = z
  .strictObject({
    SecretKey: z.string().max(8192).optional(),
    Name: z.string().max(256).optional(),
    Level: z.number().int().optional(),
    Provider: z.string().max(2048).optional(),
    Status: z.boolean().optional(),
    Config: configObject.optional(),
    config: configObject.optional(),
  })
  .refine((body) => body.Config === undefined || body.config === undefined, {
    message: 'send Config or config, not both',
    path: ['Config'],
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'nothing to update' });
export type UpdateKeyBody = z.infer<typeof updateKeyBody>;

/** `{id}` of /x-keys/{id}: a key id. */
export function keyIdParam(value: string | undefined): bigint {
  if (
    value === undefined ||
    !/^\d{1,19}$/.test(value) ||
    BigInt(value) > 9_223_372_036_854_775_807n ||
    BigInt(value) === 0n
  ) {
    throw new AppError(ErrorCode.InvalidRequest, 'the key id must be a positive integer', { field: 'id' });
  }
  return BigInt(value);
}

/** `/x-keys/{selector}`: a key id, `L<level>` or a provider host. */
export type KeySelector = { id: bigint } | { level: number } | { provider: string };

export function parseSelector(value: string | undefined): KeySelector {
  const text = value ?? '';
  if (/^\d+$/.test(text)) {
    return { id: keyIdParam(text) };
  }
  const level = /^L(\d+)$/i.exec(text);
  if (level) {
    const n = Number(level[1]);
    if (n > 9) {
      throw new AppError(ErrorCode.InvalidRequest, 'level must be an integer from 0 to 9', {
        field: 'level',
      });
    }
    return { level: n };
  }
  if (!/^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$/.test(text)) {
    throw new AppError(ErrorCode.InvalidRequest, 'expected a key id, L<level> or a provider host', {
      field: 'selector',
    });
  }
  return { provider: text };
}

/** The key record (`keyRecord`); SecretKey is masked by the keypool. */
export const keyRecordSchema = z
  .object({
    ID: z.number().int(),
    Name: z.string(),
    Level: z.number().int(),
    Provider: z.string(),
    SecretKey: z.string().meta({ description: 'Masked' }),
    Status: z.boolean(),
    Config: z.record(z.string(), z.unknown()).meta({ description: 'The provider type settings' }),
    CreatedAt: z.string(),
    UpdatedAt: z.string(),
  })
  .meta({ id: 'ProviderKey' });

/** GET /x-keys and /x-keys/{selector}. */
export const keyListResponse = z.object({ success: z.literal(true), keys: z.array(keyRecordSchema) });

/** POST /x-keys. */
export const keyCreatedResponse = z.object({
  success: z.literal(true),
  Action: z.literal('add'),
  Key: keyRecordSchema,
  AutoConfig: z.object({ LevelMapper: z.record(z.string(), z.number().int()) }),
});

/** PUT|POST /x-keys/{id}. */
export const keyUpdatedResponse = z.object({
  success: z.literal(true),
  Action: z.literal('update'),
  Key: keyRecordSchema,
});

/** DELETE /x-keys/{id}. */
export const keyDeletedResponse = z.object({
  success: z.literal(true),
  Action: z.literal('delete'),
  ID: z.number().int(),
});

export const KEY_ID_PARAM = { selector: 'A key id' };
