/**
 * The Redis layout of upstream-key health, written by every proxy replica and read by keypool
 * (sleeping keys in /x-conf, `DelKeys` wakes them). Both sides build their keys and decode their
 * values here, so the layout is written down once:
 *
 *   <prefix>sleep:<ownerId>            hash   keyId → SleepEntry (JSON)
 *   <prefix>msleep:<ownerId>           hash   keyId|model → SleepEntry (JSON): the key may not use the model
 *                                             (expires a day after the last pair went to sleep)
 *   <prefix>probe:<ownerId>:<level>    string set for 30 s by the request that probes the Level's sleepers
 *   <prefix>fail:<keyId>               int    consecutive failures since the last success or sleep
 *   <prefix>step:<keyId>               int    sleeps since the last success (the 5 → 15 → 30 min ladder)
 *   <prefix>mfail:<keyId>|<model>      int    the same two counters for one (key, model) pair
 *   <prefix>mstep:<keyId>|<model>      int
 *   <prefix>switch:<ownerId>           hash   level → SwitchEntry (JSON)
 *   <prefix>lvlfail:<ownerId>:<level>  int    failures of the Level in the current one-minute window
 *   <prefix>failing:<ownerId>          hash   keyId, or keyId|model → 1: it has counters a success resets
 *                                             (a call served by a key not in it writes nothing)
 *
 * A sleep entry whose `until` has passed is awake; nothing needs to delete it.
 */

/** How long counters of a key survive without news (the ladder forgets a key idle for a day). */
export const KEY_STATE_TTL_SECONDS = 86_400;

const MINUTE = 60_000;
/**
 * The sleep ladder: a key (or a key with one model) sleeps 5 minutes the first time in a row,
 * 15 the second, 30 the third and every later time, until a success resets it.
 */
export const SLEEP_LADDER_MS = [5 * MINUTE, 15 * MINUTE, 30 * MINUTE] as const;
export const LONGEST_SLEEP_MS = 30 * MINUTE;

/**
 * How long the `step`-th sleep in a row lasts, counted as `SleepEntry.step` counts: 1 is the
 * first sleep since the last success.
 */
export function sleepLength(step: number): number {
  return SLEEP_LADDER_MS[Math.min(Math.max(step, 1), SLEEP_LADDER_MS.length) - 1] ?? LONGEST_SLEEP_MS;
}

export interface SleepEntry {
  /** Wake time, epoch ms. */
  until: number;
  /** The failure class that put the key to sleep (`auth`, `timeout`, …, or `manual`). */
  failure: string;
  /** How many times in a row the key has slept, this sleep included (1 = the first). */
  step: number;
}

export interface SwitchEntry {
  /** End of the cool-down, epoch ms. */
  until: number;
  /** When the Level was switched, epoch ms. */
  at: number;
}

export function keyStateKeys(prefix: string) {
  return {
    sleeping: (ownerId: string | bigint) => `${prefix}sleep:${ownerId}`,
    sleepingModels: (ownerId: string | bigint) => `${prefix}msleep:${ownerId}`,
    probe: (ownerId: string | bigint, level: number) => `${prefix}probe:${ownerId}:${level}`,
    failures: (keyId: string | bigint) => `${prefix}fail:${keyId}`,
    sleeps: (keyId: string | bigint) => `${prefix}step:${keyId}`,
    pairFailures: (keyId: string | bigint, model: string) => `${prefix}mfail:${keyModelField(keyId, model)}`,
    pairSleeps: (keyId: string | bigint, model: string) => `${prefix}mstep:${keyModelField(keyId, model)}`,
    switched: (ownerId: string | bigint) => `${prefix}switch:${ownerId}`,
    levelFailures: (ownerId: string | bigint, level: number) => `${prefix}lvlfail:${ownerId}:${level}`,
    failing: (ownerId: string | bigint) => `${prefix}failing:${ownerId}`,
  };
}

/** The field of a (key, model) sleep: key ids hold no `|`, so any model name reads back. */
export function keyModelField(keyId: string | bigint, model: string): string {
  return `${keyId}|${model}`;
}

/** A field of the (key, model) hash read back; undefined when it is not one. */
export function parseKeyModelField(field: string): { keyId: string; model: string } | undefined {
  const bar = field.indexOf('|');
  const keyId = field.slice(0, Math.max(bar, 0));
  return /^\d+$/.test(keyId) && bar < field.length - 1 ? { keyId, model: field.slice(bar + 1) } : undefined;
}

export function encodeSleep(entry: SleepEntry): string {
  return JSON.stringify(entry);
}

/** Undefined for a value that is not a sleep entry (it then counts as awake). */
export function decodeSleep(value: string): SleepEntry | undefined {
  const parsed = parseObject(value);
  const until = Number(parsed?.until);
  if (!parsed || !Number.isFinite(until)) {
    return undefined;
  }
  return {
    until,
    failure: typeof parsed.failure === 'string' ? parsed.failure : '',
    step: Number.isInteger(parsed.step) && Number(parsed.step) > 0 ? Number(parsed.step) : 1,
  };
}

export function encodeSwitch(entry: SwitchEntry): string {
  return JSON.stringify(entry);
}

export function decodeSwitch(value: string): SwitchEntry | undefined {
  const parsed = parseObject(value);
  const until = Number(parsed?.until);
  return parsed && Number.isFinite(until) ? { until, at: Number(parsed.at) || 0 } : undefined;
}

function parseObject(value: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
