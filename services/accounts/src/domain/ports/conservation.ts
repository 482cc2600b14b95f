/** Sums per owner tree, in nano-USD (see domain/check-conservation.ts). */
export interface ConservationRow {
  ownerId: bigint;
  mintedNano: bigint;
  transfersInNano: bigint;
  lotsNano: bigint;
  debtNano: bigint;
  usageNano: bigint;
  feesNano: bigint;
  expiredNano: bigint;
}

/** The conservation sums over accounts, ledger and lots (root's audit). */
export interface ConservationReport {
  /** One row per owner tree; a lot counts as live while now < its expiry. */
  totals(now: Date): Promise<ConservationRow[]>;
}
