import type { ConservationReport, ConservationRow } from '../../src/domain/ports/conservation.js';
import type { Tables } from './tables.js';

/** The conservation sums per owner tree, computed from the in-memory tables like the SQL report. */
export class MemoryConservationReport implements ConservationReport {
  constructor(private readonly tables: () => Tables) {}

  async totals(now: Date) {
    const { accounts, ledger, lots } = this.tables();
    const owners = new Map<bigint, ConservationRow>();
    const rowOf = (accountId: bigint): ConservationRow => {
      const ownerId = accounts.get(accountId)?.ownerId ?? 0n;
      let row = owners.get(ownerId);
      if (!row) {
        row = {
          ownerId,
          mintedNano: 0n,
          transfersInNano: 0n,
          lotsNano: 0n,
          debtNano: 0n,
          usageNano: 0n,
          feesNano: 0n,
          expiredNano: 0n,
        };
        owners.set(ownerId, row);
      }
      return row;
    };
    for (const account of accounts.values()) {
      rowOf(account.id).debtNano += account.debtNano;
    }
    for (const entry of ledger) {
      const row = rowOf(entry.accountId);
      if (entry.kind === 'mint') {
        row.mintedNano += entry.amountNano;
      } else if (['grant', 'clawback', 'refund', 'debt'].includes(entry.kind)) {
        row.transfersInNano += entry.amountNano;
      } else if (entry.kind === 'usage') {
        row.usageNano -= entry.amountNano;
      } else if (entry.kind === 'fee') {
        row.feesNano -= entry.amountNano;
      }
    }
    for (const lot of lots.values()) {
      const row = rowOf(lot.accountId);
      if (lot.expiresAt > now) {
        row.lotsNano += lot.remainingNano;
      } else {
        row.expiredNano += lot.remainingNano;
      }
    }
    return [...owners.values()].sort((a, b) => (a.ownerId < b.ownerId ? -1 : 1));
  }
}
