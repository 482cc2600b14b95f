import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { bootstrapRoot } from '../../src/domain/bootstrap-root.js';
import { checkConservation } from '../../src/domain/check-conservation.js';
import { createAccount, type AccountFields, type CreatedAccount } from '../../src/domain/create-account.js';
import { DAY_MS } from '../../src/domain/lots.js';
import type { AccountRecord } from '../../src/domain/model.js';
import type { Clock } from '@gw/kit';
import type { AccountsDeps, AuditEntry } from '../../src/domain/ports/deps.js';
import { MemoryAccountsStore } from './memory-store.js';
import type { Tables } from './tables.js';

/** A clock the test moves by hand. */
class TestClock implements Clock {
  constructor(private at: Date) {}

  now(): Date {
    return new Date(this.at);
  }

  advanceDays(days: number): void {
    this.at = new Date(this.at.getTime() + days * DAY_MS);
  }
}

/** The accounts domain over in-memory stores, with what it announced and enqueued. */
export interface MoneyWorld {
  deps: AccountsDeps;
  store: MemoryAccountsStore;
  clock: TestClock;
  root: AccountRecord;
  changed: Array<{ accountId: bigint; reason: string; keyHash?: string }>;
  audits: AuditEntry[];
  softLimitAlerts: Array<{ accountId: bigint; month: string }>;
  /** Billing notices enqueued, once per job key as the mail queue keeps them. */
  notices: Map<string, { accountId: bigint; subject: string; text: string }>;
}

const START = new Date('2026-03-10T12:00:00Z');

export async function moneyWorld(
  options: { apiBalanceFloorNano?: bigint; tenancy?: 'single' | 'multi' } = {},
): Promise<MoneyWorld> {
  const clock = new TestClock(START);
  const store = new MemoryAccountsStore();
  const changed: MoneyWorld['changed'] = [];
  const audits: AuditEntry[] = [];
  const softLimitAlerts: MoneyWorld['softLimitAlerts'] = [];
  const notices: MoneyWorld['notices'] = new Map();
  const deps: AccountsDeps = {
    store,
    clock,
    events: {
      accountChanged: (accountId, reason, keyHash) => void changed.push({ accountId, reason, keyHash }),
      audit: (entry) => void audits.push(entry),
    },
    alerts: {
      softLimitReached: async (accountId, month) => void softLimitAlerts.push({ accountId, month }),
      billingNotice: async (accountId, subject, text, jobKey) => {
        if (!notices.has(jobKey)) {
          notices.set(jobKey, { accountId, subject, text });
        }
      },
    },
    policy: { apiBalanceFloorNano: options.apiBalanceFloorNano ?? 0n, tenancy: options.tenancy ?? 'single' },
  };
  const { root } = await bootstrapRoot(deps, undefined);
  return { deps, store, clock, root, changed, audits, softLimitAlerts, notices };
}

let created = 0;

/** Creates a funded subaccount of `parentId` with a fresh name. */
export async function createChild(
  world: MoneyWorld,
  parentId: bigint,
  creditGrantedNano: bigint,
  options: { fields?: AccountFields; days?: number } = {},
): Promise<CreatedAccount> {
  created += 1;
  const name = `child${created}x`;
  return createAccount(world.deps, {
    callerId: parentId,
    fields: { name, email: `${name}@example.com`, ...options.fields },
    creditGrantedNano,
    days: options.days,
    idempotencyKey: '',
  });
}

/** Hex SHA-256 standing in for the edge's hash of one HTTP request. */
export function requestHash(request: string): string {
  return createHash('sha256').update(request).digest('hex');
}

/** An account's balance straight from the tables (unexpired lots − debt), deleted or not. */
export function balanceNano(world: MoneyWorld, accountId: bigint): bigint {
  const tables = world.store.tables();
  const now = world.clock.now();
  const lots = [...tables.lots.values()]
    .filter((lot) => lot.accountId === accountId && lot.expiresAt > now)
    .reduce((sum, lot) => sum + lot.remainingNano, 0n);
  return lots - (tables.accounts.get(accountId)?.debtNano ?? 0n);
}

/** What each live lot of an account holds, earliest expiry first. */
export async function lotsOf(world: MoneyWorld, accountId: bigint): Promise<bigint[]> {
  return (await world.store.lots.live([accountId], world.clock.now())).map((lot) => lot.remainingNano);
}

export function ledgerOf(world: MoneyWorld, idempotencyKey: string): Tables['ledger'] {
  return world.store.tables().ledger.filter((entry) => entry.idempotencyKey === idempotencyKey);
}

/**
 * The conservation invariant, exact in nano-USD, overall and for every owner tree: credit minted
 * (and transferred in) = balances + usage + fees + expired; and the two-legged movements (grant,
 * claw-back, refund) sum to zero.
 */
export async function expectConserved(world: MoneyWorld): Promise<void> {
  const { overall, owners } = await checkConservation(world.deps, world.root.id);
  expect(overall.differenceNano).toBe(0n);
  for (const owner of owners) {
    expect(owner.differenceNano, `owner ${owner.ownerId}`).toBe(0n);
  }
  const moved = world.store
    .tables()
    .ledger.filter((entry) => ['grant', 'clawback', 'refund'].includes(entry.kind))
    .reduce((sum, entry) => sum + entry.amountNano, 0n);
  expect(moved).toBe(0n);
}
