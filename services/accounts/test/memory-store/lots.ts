import type { CreditLot } from '../../src/domain/model.js';
import type { LotTake, LotWrites, NewLot } from '../../src/domain/ports/lots.js';
import { draw, type Tables } from './tables.js';

/** Credit lots in memory: live means something left and unexpired, earliest expiry first, then id. */
export class MemoryLots implements LotWrites {
  constructor(private readonly tables: () => Tables) {}

  async live(accountIds: readonly bigint[], now: Date): Promise<CreditLot[]> {
    return [...this.tables().lots.values()]
      .filter((lot) => accountIds.includes(lot.accountId) && lot.remainingNano > 0n && lot.expiresAt > now)
      .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime() || (a.id < b.id ? -1 : 1))
      .map((lot) => ({
        id: lot.id,
        accountId: lot.accountId,
        remainingNano: lot.remainingNano,
        expiresAt: new Date(lot.expiresAt),
      }));
  }

  lockSpendable(accountIds: readonly bigint[], now: Date) {
    return this.live(accountIds, now);
  }

  async take(takes: readonly LotTake[]) {
    let taken = 0;
    for (const { lotId, takeNano } of takes) {
      const lot = this.tables().lots.get(lotId);
      if (lot && lot.remainingNano >= takeNano) {
        lot.remainingNano -= takeNano;
        taken++;
      }
    }
    return taken === takes.length;
  }

  async insert(lot: NewLot, at: Date) {
    const tables = this.tables();
    const id = draw(tables, 'lot');
    tables.lots.set(id, {
      id,
      accountId: lot.accountId,
      grantedNano: lot.amountNano,
      remainingNano: lot.amountNano,
      expiresAt: new Date(lot.expiresAt),
      ledgerId: lot.ledgerId,
      createdAt: at,
    });
  }
}
