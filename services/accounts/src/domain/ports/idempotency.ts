export interface StoredIdempotency {
  requestHash: string;
  operation: string;
  response: string;
}

/** Idempotency-Key records of management calls, inside the call's transaction. */
export interface IdempotencyKeys {
  /**
   * Claims (caller, key) for this request; undefined when the claim is new, else what the first
   * request stored. A concurrent claim of the same key waits for the first transaction.
   */
  claim(
    callerId: bigint,
    key: string,
    requestHash: string,
    operation: string,
    at: Date,
  ): Promise<StoredIdempotency | undefined>;
  saveResponse(callerId: bigint, key: string, response: string): Promise<void>;
}
