import { createHash, randomBytes } from 'node:crypto';
import { AppError, ErrorCode } from '@gw/kit';
import type { Redis } from 'ioredis';

/** What the edge keeps of a console session: never the key itself, only its hash. */
export interface ConsoleSession {
  accountId: bigint;
  keyHash: string;
  csrfToken: string;
  createdAt: number;
}

export interface SessionLimits {
  /** A session unused this long is gone (each use starts the period again). */
  idleMs: number;
  /** A session ends this long after sign-in however busy it is. */
  maxAgeMs: number;
}

/** A cookie value: 256 random bits. Redis holds only its SHA-256, so a copy of Redis signs nobody in. */
function storageId(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('base64url');
}

/** Redis down or slow: the console answers 503 (like any backing outage), never 401. */
async function shared<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw new AppError(ErrorCode.Unavailable, 'console sessions are unavailable', undefined, error);
  }
}

/**
 * Console sessions in Redis, so every edge replica sees the same ones. Layout under the prefix:
 * `s:<sha256(id)>` a hash with the session's fields, expiring after the idle period (renewed on
 * each use), and `a:<account id>` the set of an account's session hashes, so a rotation, a disable
 * or a delete ends them all at once.
 */
export class ConsoleSessions {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    readonly limits: SessionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Opens a session; answers the cookie value and the CSRF token the console sends with each write. */
  async open(accountId: bigint, keyHash: string): Promise<{ sessionId: string; csrfToken: string }> {
    const sessionId = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(32).toString('base64url');
    const id = storageId(sessionId);
    const accountSet = `${this.prefix}a:${accountId}`;
    await shared(() =>
      this.redis
        .multi()
        .hset(`${this.prefix}s:${id}`, {
          accountId: accountId.toString(),
          keyHash,
          csrfToken,
          createdAt: String(this.now()),
        })
        .pexpire(`${this.prefix}s:${id}`, this.limits.idleMs)
        .sadd(accountSet, id)
        .pexpire(accountSet, this.limits.maxAgeMs)
        .exec(),
    );
    return { sessionId, csrfToken };
  }

  /** The live session for a cookie value, its idle period started again; undefined when gone. */
  async use(sessionId: string): Promise<ConsoleSession | undefined> {
    const key = `${this.prefix}s:${storageId(sessionId)}`;
    const fields = await shared(() => this.redis.hgetall(key));
    if (!fields.keyHash || !fields.accountId || !fields.csrfToken) {
      return undefined;
    }
    const session: ConsoleSession = {
      accountId: BigInt(fields.accountId),
      keyHash: fields.keyHash,
      csrfToken: fields.csrfToken,
      createdAt: Number(fields.createdAt),
    };
    if (this.now() - session.createdAt >= this.limits.maxAgeMs) {
      await this.end(sessionId, session.accountId);
      return undefined;
    }
    await shared(() => this.redis.pexpire(key, this.limits.idleMs));
    return session;
  }

  /** Signs one session out. */
  async end(sessionId: string, accountId: bigint): Promise<void> {
    const id = storageId(sessionId);
    await shared(() =>
      this.redis.multi().del(`${this.prefix}s:${id}`).srem(`${this.prefix}a:${accountId}`, id).exec(),
    );
  }

  /** Ends every session of an account (its key rotated, it was disabled or deleted). */
  async endAll(accountId: bigint): Promise<void> {
    const accountSet = `${this.prefix}a:${accountId}`;
    const ids = await shared(() => this.redis.smembers(accountSet));
    await shared(() => this.redis.del(accountSet, ...ids.map((id) => `${this.prefix}s:${id}`)));
  }
}
