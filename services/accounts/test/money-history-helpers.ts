import { AppError, usd } from '@gw/kit';
import fc from 'fast-check';
import { expect } from 'vitest';
import { checkConservation } from '../src/domain/check-conservation.js';
import { createAccount } from '../src/domain/create-account.js';
import { DEFAULT_CREDIT_DAYS } from '../src/domain/credit.js';
import { debit } from '../src/domain/debit.js';
import { deleteAccount } from '../src/domain/delete-account.js';
import { DAY_MS } from '../src/domain/lots.js';
import type { AccountsDeps } from '../src/domain/ports/deps.js';
import { updateAccount } from '../src/domain/update-account.js';

/**
 * Random money histories (the conservation and credit-life properties), run against any store:
 * the in-memory one in the unit project, PostgreSQL in a smaller integration run. Each history
 * starts from a funded account under root and applies creations, recharges, claw-backs,
 * deletes, usage, clock moves and refused requests (over-balance grants, bad amounts).
 */

/** A lot as the property reads it. */
export interface LotState {
  remainingNano: bigint;
  expiresAt: Date;
}

export interface HistoryBackend {
  deps: AccountsDeps;
  rootId: bigint;
  /** Every lot with something left, expired or not. */
  lots(): Promise<LotState[]>;
  advanceDays(days: number): void;
}

export type Command =
  | { kind: 'create'; parent: number; cents: number; days: number }
  | { kind: 'recharge'; target: number; cents: number; days: number }
  | { kind: 'clawback'; target: number; cents: number }
  | { kind: 'delete'; target: number }
  | { kind: 'usage'; target: number; cents: number }
  | { kind: 'advance'; days: number };

const index = fc.nat({ max: 30 });
const cents = fc.integer({ min: -50, max: 40_000 });
const days = fc.integer({ min: 1, max: 400 });

export const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), parent: index, cents, days }),
  fc.record({ kind: fc.constant('recharge' as const), target: index, cents, days }),
  fc.record({ kind: fc.constant('clawback' as const), target: index, cents }),
  fc.record({ kind: fc.constant('delete' as const), target: index }),
  fc.record({
    kind: fc.constant('usage' as const),
    target: index,
    cents: fc.integer({ min: 0, max: 5_000 }),
  }),
  fc.record({ kind: fc.constant('advance' as const), days: fc.integer({ min: 1, max: 200 }) }),
);

interface Live {
  id: bigint;
  parentId: bigint;
}

/** Credit alive after `at`: what the property compares before and after each step. */
function aliveAfter(lots: readonly LotState[], at: number): bigint {
  return lots.filter((lot) => lot.expiresAt.getTime() > at).reduce((sum, lot) => sum + lot.remainingNano, 0n);
}

/**
 * No move extends the life of credit: for every instant T, the credit still alive after T never
 * grows, except by what root minted in this step with an expiry after T.
 */
function expectNoLifeExtended(
  before: readonly LotState[],
  after: readonly LotState[],
  minted: ReadonlyArray<{ amountNano: bigint; expiresAt: number }>,
): void {
  const instants = new Set<number>();
  for (const at of [...before, ...after].map((lot) => lot.expiresAt.getTime())) {
    instants.add(at);
    instants.add(at - 1);
  }
  for (const at of instants) {
    const allowance = minted
      .filter((mint) => mint.expiresAt > at)
      .reduce((sum, mint) => sum + mint.amountNano, 0n);
    expect(aliveAfter(after, at), `credit alive after ${new Date(at).toISOString()}`).toBeLessThanOrEqual(
      aliveAfter(before, at) + allowance,
    );
  }
}

let histories = 0;

/** Runs one history and checks both properties after every step. */
export async function runHistory(backend: HistoryBackend, commands: readonly Command[]): Promise<void> {
  const { deps, rootId } = backend;
  const run = ++histories;
  const tag = `${Date.now().toString(36)}${run}`;
  let named = 0;
  const create = (callerId: bigint, creditNano: bigint, validDays: number) => {
    named += 1;
    const name = `hist${tag}n${named}`;
    return createAccount(deps, {
      callerId,
      fields: { name, email: `${name}@example.com` },
      creditGrantedNano: creditNano,
      days: validDays,
      idempotencyKey: '',
    });
  };
  const top = await create(rootId, usd(1000), 365);
  const live: Live[] = [{ id: top.account.id, parentId: rootId }];
  const pick = (at: number) => live[at % live.length];

  for (const [step, command] of commands.entries()) {
    const before = await backend.lots();
    const minted: Array<{ amountNano: bigint; expiresAt: number }> = [];
    const amount = BigInt('cents' in command ? command.cents : 0) * 10_000_000n;
    const target = 'target' in command ? pick(command.target) : undefined;
    try {
      switch (command.kind) {
        case 'create': {
          const parent = pick(command.parent) ?? live[0];
          if (parent) {
            const child = await create(parent.id, amount, command.days);
            live.push({ id: child.account.id, parentId: parent.id });
          }
          break;
        }
        case 'recharge':
        case 'clawback':
          if (target) {
            const granted = command.kind === 'recharge' ? amount : -amount;
            const validDays = command.kind === 'recharge' ? command.days : undefined;
            if (target.parentId === rootId && granted > 0n) {
              const expiresAt = deps.clock.now().getTime() + (validDays ?? DEFAULT_CREDIT_DAYS) * DAY_MS;
              minted.push({ amountNano: granted, expiresAt });
            }
            await updateAccount(deps, {
              callerId: target.parentId,
              identifier: String(target.id),
              fields: {},
              creditGrantedNano: granted,
              days: validDays,
              idempotencyKey: '',
              requestHash: '',
              requestId: `hist-${tag}-${step}`,
            });
          }
          break;
        case 'delete':
          if (target && target !== live[0]) {
            await deleteAccount(deps, {
              callerId: target.parentId,
              identifier: String(target.id),
              idempotencyKey: '',
              requestHash: '',
            });
            live.splice(live.indexOf(target), 1);
          }
          break;
        case 'usage':
          if (target) {
            await debit(deps, {
              accountId: target.id,
              amountNano: amount,
              idempotencyKey: `hist-${tag}-${step}`,
            });
          }
          break;
        case 'advance':
          backend.advanceDays(command.days);
          break;
      }
    } catch (error) {
      // Refusals are part of the history (over-balance grants, negative amounts, live children).
      if (!(error instanceof AppError)) {
        throw error;
      }
    }
    const { overall, owners } = await checkConservation(deps, rootId);
    expect(overall.differenceNano, `conservation after step ${step} (${command.kind})`).toBe(0n);
    for (const owner of owners) {
      expect(owner.differenceNano, `owner ${owner.ownerId} after step ${step}`).toBe(0n);
    }
    const after = await backend.lots();
    expect(after.every((lot) => lot.remainingNano >= 0n)).toBe(true);
    expectNoLifeExtended(before, after, minted);
  }
}
