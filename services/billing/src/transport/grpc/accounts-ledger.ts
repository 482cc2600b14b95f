import type { PromiseClient } from '@gw/kit';
import { accounts as pb } from '@gw/proto';
import type { AccountMultipliers, DebitOutcome, Ledger, RatesSource } from '../../domain/ports/deps.js';
import type { StoredCharge } from '../../domain/ports/usage.js';

const OUTCOMES: Record<pb.DebitOutcome, DebitOutcome> = {
  [pb.DebitOutcome.DEBIT_OUTCOME_CHARGED]: 'charged',
  [pb.DebitOutcome.DEBIT_OUTCOME_REPLAYED]: 'replayed',
  [pb.DebitOutcome.DEBIT_OUTCOME_CONFLICT]: 'conflict',
  [pb.DebitOutcome.DEBIT_OUTCOME_NO_ACCOUNT]: 'no_account',
  // An accounts release newer than this billing: nothing it says is a charge we can confirm.
  [pb.DebitOutcome.DEBIT_OUTCOME_UNSPECIFIED]: 'conflict',
};

/**
 * A batch of thousands of charges may wait on account rows other writers hold: give it time
 * rather than fail and charge the whole batch again (its events stay in hand meanwhile).
 */
const DEBIT_BATCH_DEADLINE_MS = 30_000;

/** Cached Rates beyond this are dropped at once (they are re-read within a batch). */
const MAX_CACHED_RATES = 100_000;

/** Accounts over gRPC: DebitBatch for the charges, GetChargeRates (cached briefly) for prices. */
export class AccountsLedger implements Ledger, RatesSource {
  private readonly rates = new Map<bigint, { at: number; value: AccountMultipliers }>();

  constructor(
    private readonly client: PromiseClient<pb.AccountsServiceClient>,
    private readonly ratesTtlMs: number,
  ) {}

  async debitBatch(charges: readonly StoredCharge[]) {
    const { results } = await this.client.debitBatch(
      {
        items: charges.map((charge) => ({
          accountId: charge.accountId,
          amountNano: charge.costNano,
          idempotencyKey: charge.eventId,
          description: charge.model,
        })),
      },
      { deadlineMs: DEBIT_BATCH_DEADLINE_MS },
    );
    return results.map((result) => ({ eventId: result.idempotencyKey, outcome: OUTCOMES[result.outcome] }));
  }

  async multipliers(accountIds: readonly bigint[]): Promise<Map<bigint, AccountMultipliers>> {
    const now = Date.now();
    if (this.rates.size > MAX_CACHED_RATES) {
      this.rates.clear();
    }
    const missing = accountIds.filter((id) => {
      const cached = this.rates.get(id);
      return !cached || now - cached.at >= this.ratesTtlMs;
    });
    if (missing.length > 0) {
      const { rates } = await this.client.getChargeRates({ accountIds: missing });
      for (const entry of rates) {
        this.rates.set(entry.accountId, {
          at: now,
          value: { accountRates: entry.rates, factor: entry.factor },
        });
      }
    }
    const found = new Map<bigint, AccountMultipliers>();
    for (const id of accountIds) {
      const cached = this.rates.get(id);
      if (cached) {
        found.set(id, cached.value);
      }
    }
    return found;
  }

  close(): void {
    this.client.close();
  }
}
