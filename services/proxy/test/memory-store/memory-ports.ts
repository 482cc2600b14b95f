import type { IncomingMessage } from 'node:http';
import { AppError, ErrorCode, type CallerIdentity } from '@gw/kit';
import type { events } from '@gw/proto';
import type { FailureClass } from '../../src/domain/key-health.js';
import type {
  AdmissionAnswer,
  AdmissionInput,
  AdmissionStore,
} from '../../src/domain/ports/admission-store.js';
import {
  emptyPoolState,
  type KeyHealthStore,
  type PoolState,
} from '../../src/domain/ports/key-health-store.js';
import type { ObjectOwners } from '../../src/domain/ports/object-owners.js';
import type { RateLimiter } from '../../src/domain/ports/rate-limiter.js';
import type {
  Reservation,
  SpendReservation,
  SpendReservations,
} from '../../src/domain/ports/spend-reservations.js';
import type { UsageOutbox } from '../../src/domain/ports/usage-outbox.js';
import type { Callers } from '../../src/transport/http/callers.js';

/**
 * In-memory ports for the in-process proxy, with the same rules as the Redis and outbox ones:
 * what a test reads back (events, failures, holds) is what the proxy did.
 */

export class MemoryOutbox implements UsageOutbox {
  full = false;
  readonly events: events.UsageRecorded[] = [];
  get size() {
    return this.events.length;
  }
  isFull() {
    return this.full;
  }
  async append(event: events.UsageRecorded) {
    this.events.push(event);
  }
}

export class MemoryObjects implements ObjectOwners {
  readonly owners = new Map<string, string>();
  async ownerOf(ownerId: string, objectId: string) {
    return this.owners.get(`${ownerId}:${objectId}`);
  }
  async record(ownerId: string, objectIds: readonly string[], accountId: string) {
    for (const id of objectIds) {
      this.owners.set(`${ownerId}:${id}`, this.owners.get(`${ownerId}:${id}`) ?? accountId);
    }
  }
}

/** The Redis script's rule in memory: one map of holds per account. */
export class MemorySpend implements SpendReservations {
  readonly holds = new Map<string, Map<string, { nano: bigint; until: number; inFlight: boolean }>>();
  private of(accountId: string) {
    const holds =
      this.holds.get(accountId) ?? new Map<string, { nano: bigint; until: number; inFlight: boolean }>();
    this.holds.set(accountId, holds);
    return holds;
  }
  /** Admission's reservation (`MemoryAdmission`). */
  async reserve(input: SpendReservation, now: number): Promise<Reservation> {
    const holds = this.of(input.accountId);
    let held = 0n;
    let inFlight = 0;
    for (const [id, hold] of holds) {
      if (hold.until <= now) {
        holds.delete(id);
      } else {
        held += hold.nano;
        inFlight += hold.inFlight ? 1 : 0;
      }
    }
    if (inFlight >= input.maxInFlight) {
      return { ok: false, reason: 'in_flight' };
    }
    if (input.balanceNano - held <= input.floorNano) {
      return { ok: false, reason: 'balance' };
    }
    holds.set(input.callId, { nano: input.estimateNano, until: input.inFlightUntil, inFlight: true });
    return { ok: true };
  }
  async hold(input: Parameters<SpendReservations['hold']>[0]) {
    if (input.releasing !== undefined) {
      this.of(input.accountId).delete(input.releasing);
    }
    this.of(input.accountId).set(input.holdId, { nano: input.costNano, until: input.until, inFlight: false });
  }
  async release(accountId: string, callId: string) {
    this.of(accountId).delete(callId);
  }
  /** Holds land at once here: nothing waits. */
  async flush() {}
}

/** Admission from the in-memory ports, each part answered as its own port answers it. */
export class MemoryAdmission implements AdmissionStore {
  constructor(private readonly ports: { limiter: RateLimiter; health: KeyHealthStore; spend: MemorySpend }) {}
  async admit(input: AdmissionInput): Promise<AdmissionAnswer> {
    return {
      limits: await this.ports.limiter.admit(input.windows, input.now),
      state: await this.ports.health.state(input.ownerId),
      reservation: input.reservation && (await this.ports.spend.reserve(input.reservation, input.now)),
    };
  }
}

export class MemoryHealth implements KeyHealthStore {
  readonly failures: Array<[string, FailureClass]> = [];
  async state(): Promise<PoolState> {
    return emptyPoolState();
  }
  async recordFailure(_owner: string, keyId: string, _level: number, failure: FailureClass) {
    this.failures.push([keyId, failure]);
    return this.failures.length;
  }
  async recordModelFailure(_owner: string, keyId: string) {
    this.failures.push([keyId, 'model']);
  }
  async recordSuccess() {}
  async claimProbe() {
    return false;
  }
  async switchLevel() {
    return true;
  }
  async switchBack() {
    return true;
  }
}

/** Callers by test key: `keyFor` hands out a key standing for an identity; any other key is 401. */
export class MemoryCallers implements Callers {
  private readonly byKey = new Map<string, CallerIdentity>();

  keyFor(identity: CallerIdentity): string {
    const key = `sk-test-${this.byKey.size + 1}`;
    this.byKey.set(key, identity);
    return key;
  }

  authenticate(req: IncomingMessage): Promise<CallerIdentity> {
    const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const identity = key === undefined ? undefined : this.byKey.get(key);
    return identity
      ? Promise.resolve(identity)
      : Promise.reject(new AppError(ErrorCode.Unauthenticated, 'invalid API key'));
  }
}
