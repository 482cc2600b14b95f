import type { Redis } from 'ioredis';
import type { ObjectOwners } from '../../domain/ports/object-owners.js';

/** How long an object's maker is remembered: upstreams keep stored responses 30 days by default. */
const OWNERSHIP_TTL_SECONDS = 30 * 24 * 60 * 60;

/**
 * Who made each stored upstream object, shared by every proxy replica: one string per object
 * (`<prefix>object:<owner>:<id>` → account id), expiring with the object upstream.
 */
export class RedisObjectOwners implements ObjectOwners {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async ownerOf(ownerId: string, objectId: string): Promise<string | undefined> {
    return (await this.redis.get(this.key(ownerId, objectId))) ?? undefined;
  }

  async record(ownerId: string, objectIds: readonly string[], accountId: string): Promise<void> {
    const batch = this.redis.multi();
    for (const id of objectIds) {
      // NX: the first account to make an object keeps it (an id is never handed over).
      batch.set(this.key(ownerId, id), accountId, 'EX', OWNERSHIP_TTL_SECONDS, 'NX');
    }
    await batch.exec();
  }

  private key(ownerId: string, objectId: string): string {
    return `${this.prefix}object:${ownerId}:${objectId}`;
  }
}
