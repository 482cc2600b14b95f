import { assertRoot } from './access.js';
import { loadCaller } from './load-caller.js';
import type { ConservationRow } from './ports/conservation.js';
import type { AccountsDeps } from './ports/deps.js';

export interface ConservationTotals {
  ownerId: bigint;
  mintedNano: bigint;
  transfersInNano: bigint;
  balancesNano: bigint;
  usageNano: bigint;
  feesNano: bigint;
  expiredNano: bigint;
  /** minted + transfers in − (balances + usage + fees + expired): 0 when no nano was made or lost. */
  differenceNano: bigint;
}

function totalsOf(row: ConservationRow): ConservationTotals {
  const balancesNano = row.lotsNano - row.debtNano;
  return {
    ownerId: row.ownerId,
    mintedNano: row.mintedNano,
    transfersInNano: row.transfersInNano,
    balancesNano,
    usageNano: row.usageNano,
    feesNano: row.feesNano,
    expiredNano: row.expiredNano,
    differenceNano:
      row.mintedNano + row.transfersInNano - (balancesNano + row.usageNano + row.feesNano + row.expiredNano),
  };
}

/**
 * Root's live audit: credit minted = balances + usage charged + fees + expired, to the nano-USD,
 * overall and per owner tree (a tree's net transfers with other trees count as minted for it).
 */
export async function checkConservation(
  deps: AccountsDeps,
  callerId: bigint,
): Promise<{ overall: ConservationTotals; owners: ConservationTotals[] }> {
  assertRoot(await loadCaller(deps, callerId));
  const rows = await deps.store.conservation.totals(deps.clock.now());
  const sum = (pick: (row: ConservationRow) => bigint) => rows.reduce((total, row) => total + pick(row), 0n);
  const overall = totalsOf({
    ownerId: 0n,
    mintedNano: sum((row) => row.mintedNano),
    transfersInNano: sum((row) => row.transfersInNano),
    lotsNano: sum((row) => row.lotsNano),
    debtNano: sum((row) => row.debtNano),
    usageNano: sum((row) => row.usageNano),
    feesNano: sum((row) => row.feesNano),
    expiredNano: sum((row) => row.expiredNano),
  });
  return { overall, owners: rows.map(totalsOf) };
}
