/**
 * The ranges of account amounts and limits (docs/decisions.md §14), one definition for the edge
 * (which bounds every management input) and accounts (which enforces them for every caller).
 * Every value stays far inside what int64 nano-USD and the database columns hold, so nothing out
 * of range ever reaches a store as a 500.
 */
export const ACCOUNT_BOUNDS = {
  /** Largest USD amount of one movement, of a limit, and of a balance. */
  maxUsd: 1_000_000_000,
  /** Smallest CreditGranted of a new account, USD. */
  minCreditUsd: 2,
  /** Largest RPM…TPD and ModelLimits value. */
  maxRateLimit: 1_000_000_000_000,
  /** Largest Rates and Factor. */
  maxMultiplier: 1_000_000,
  /** Largest Role, Gear and Tier. */
  maxAttribute: 1_000_000,
  /** Entries of ModelLimits and of ModelMapper. */
  maxMapEntries: 1024,
} as const;
