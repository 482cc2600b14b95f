import { and, eq } from 'drizzle-orm';
import type { IdempotencyKeys } from '../domain/ports/idempotency.js';
import type { Executor } from './executor.js';
import { idempotencyKeys } from './schema.js';

/** Idempotency-Key records over drizzle, inside the call's transaction. */
export class DrizzleIdempotencyKeys implements IdempotencyKeys {
  constructor(private readonly db: Executor) {}

  async claim(callerId: bigint, key: string, requestHash: string, operation: string, at: Date) {
    const claimed = await this.db
      .insert(idempotencyKeys)
      .values({ callerId, key, requestHash, operation, response: '', createdAt: at })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (claimed.length === 1) {
      return undefined;
    }
    const [stored] = await this.db
      .select({
        requestHash: idempotencyKeys.requestHash,
        operation: idempotencyKeys.operation,
        response: idempotencyKeys.response,
      })
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.callerId, callerId), eq(idempotencyKeys.key, key)));
    if (!stored) {
      throw new Error('idempotency key claimed but not readable');
    }
    return stored;
  }

  async saveResponse(callerId: bigint, key: string, response: string) {
    await this.db
      .update(idempotencyKeys)
      .set({ response })
      .where(and(eq(idempotencyKeys.callerId, callerId), eq(idempotencyKeys.key, key)));
  }
}
