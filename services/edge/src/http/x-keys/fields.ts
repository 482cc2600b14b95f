import { AppError, ErrorCode, ownerIdOf, readKeyConfig } from '@gw/kit';
import type { accounts, keypool } from '@gw/proto';
import type { Request } from 'express';
import { isRootPool } from '../owner.js';
import type { UpdateKeyBody } from './schemas.js';

/** Whose pool a key write goes to, and who did it (for the operation log). */
export function poolWriter(caller: accounts.Account, req: Request) {
  return {
    ownerId: ownerIdOf(caller),
    ownerIsRoot: isRootPool(caller),
    operatorId: caller.id,
    ipAddress: req.ip ?? '',
  };
}

/** A Config object → the contract's KeyConfig; what it cannot carry is refused, naming the field. */
function keyConfig(config: Record<string, unknown>): keypool.KeyConfig {
  const read = readKeyConfig(config);
  if (!read.ok) {
    throw new AppError(ErrorCode.InvalidRequest, `${read.field}: ${read.reason}`, { field: read.field });
  }
  return read.config;
}

/** The PascalCase body of a create or an update → the contract's key fields (`config` accepted too). */
export function toKeyFields(body: UpdateKeyBody): keypool.KeyFields {
  const config = body.Config ?? body.config;
  return {
    name: body.Name,
    level: body.Level,
    provider: body.Provider,
    secretKey: body.SecretKey,
    status: body.Status,
    config: config === undefined ? undefined : keyConfig(config),
    // Deprecated field, filled for a keypool that predates config (docs/adr/0006-typed-contract-fields.md).
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    configJson: config === undefined ? undefined : JSON.stringify(config),
  };
}
