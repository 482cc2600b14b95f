/** What a reservation attempt came to; `unknown`: the store did not answer (its `error`). */
export type Reservation =
  { ok: true } | { ok: false; reason: 'balance' | 'in_flight' } | { ok: 'unknown'; error: unknown };

/** A call's estimated cost, to hold while it is in flight (admission asks for it, `AdmissionStore`). */
export interface SpendReservation {
  accountId: string;
  callId: string;
  estimateNano: bigint;
  balanceNano: bigint;
  floorNano: bigint;
  maxInFlight: number;
  /** When an in-flight hold lapses on its own (a proxy that died never releases it). */
  inFlightUntil: number;
}

/**
 * Money an account's calls may still cost, shared by every proxy replica (docs/decisions.md §1):
 * each call in flight holds its estimated cost (reserved at admission, `AdmissionStore`); a served
 * exchange holds its actual cost until billing has surely charged it. A call is admitted only
 * while the balance less what is held stays above the floor.
 */
export interface SpendReservations {
  /**
   * A served exchange's actual cost, held until `until`. With `releasing`, the exchange ended the
   * call and its in-flight estimate is released in the same step (one round trip, not two).
   */
  hold(input: {
    accountId: string;
    holdId: string;
    costNano: bigint;
    until: number;
    now: number;
    releasing?: string;
  }): Promise<void>;
  /** The call ended: its in-flight estimate is released. */
  release(accountId: string, callId: string): Promise<void>;
  /** Holds this replica has not sent yet are sent now (shutdown); resolves once they landed. */
  flush(): Promise<void>;
}
