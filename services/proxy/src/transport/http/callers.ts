import type { IncomingMessage } from 'node:http';
import {
  assertMayCallAi,
  authenticateKey,
  callerIdentity,
  clientOf,
  type AuthDeps,
  type CallerIdentity,
} from '@gw/kit';
import type { accounts } from '@gw/proto';

/** Who makes an AI call: the proxy serves the public AI paths and authenticates each call itself. */
export interface Callers {
  /**
   * The caller of an AI call, by the gateway key it carries (Bearer or `x-api-key`), admitted to
   * call AI (active, within AllowIPs, spend limits and balance floor); an AppError otherwise
   * (401, 403, 429, quota).
   */
  authenticate(req: IncomingMessage): Promise<CallerIdentity>;
}

/**
 * The callers of this process, authenticated by the kit's key authentication (the cache filled
 * from accounts and invalidated by its change events, the failed-authentication limiter,
 * AllowIPs, trusted proxies) and admitted by the spend rule every AI call passes.
 */
export function keyCallers(auth: AuthDeps, apiBalanceFloorNano: bigint): Callers {
  /** The cache hands out the same account object until accounts reports a change. */
  const identities = new WeakMap<accounts.Account, CallerIdentity>();
  return {
    async authenticate(req) {
      const account = await authenticateKey(
        auth,
        {
          authorization: req.headers.authorization,
          apiKey: req.headers['x-api-key'],
          client: clientOf(req, auth),
        },
        'ai',
      );
      assertMayCallAi(account, apiBalanceFloorNano, new Date());
      let identity = identities.get(account);
      if (identity === undefined) {
        identity = callerIdentity(account, apiBalanceFloorNano);
        identities.set(account, identity);
      }
      return identity;
    },
  };
}
