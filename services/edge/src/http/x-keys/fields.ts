import type { accounts, keypool } from '@gw/proto';
import type { Request } from 'express';
import { isRootPool, ownerIdOf } from '../owner.js';
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

/** The PascalCase body of a create or an update → the contract's key fields (`config` accepted too). */
export function toKeyFields(body: UpdateKeyBody): keypool.KeyFields {
  const config = body.Config ?? body.config;
  return {
    name: body.Name,
    level: body.Level,
    provider: body.Provider,
    secretKey: body.SecretKey,
    status: body.Status,
    configJson: config === undefined ? undefined : JSON.stringify(config),
  };
}
