/**
 * The time, as the domain reads it: only the domain reads the clock, and passes the time to its
 * stores (a row's created_at, an expiry), so a test sets it and the rules can be checked.
 */
export interface Clock {
  now(): Date;
}

/** The machine's clock, what every service runs on. */
export const systemClock: Clock = { now: () => new Date() };
