/**
 * The Redis layout of upstream-key health, written by every proxy replica and read by keypool
 * (sleeping keys in /x-conf, `DelKeys` wakes them). Both sides build their keys and decode their
 * values here, so the layout is written down once:
 *
 *   <prefix>sleep:<ownerId>            hash   keyId → SleepEntry (JSON)
 *   <prefix>msleep:<ownerId>           hash   keyId|model → SleepEntry (JSON): the key may not use the model
 *   <prefix>probe:<ownerId>:<level>    string set for 30 s by the request that probes the Level's sleepers
 *   <prefix>fail:<keyId>               int    consecutive failures since the last success or sleep
 *   <prefix>step:<keyId>               int    sleeps since the last success (the 5 → 15 → 30 min ladder)
 *   <prefix>switch:<ownerId>           hash   level → SwitchEntry (JSON)
 *   <prefix>lvlfail:<ownerId>:<level>  int    failures of the Level in the current one-minute window
 *
 * A sleep entry whose `until` has passed is awake; nothing needs to delete it.
 */

/** How long counters of a key survive without news (the ladder forgets a key idle for a day). */
export const KEY_STATE_TTL_SECONDS = 86_400;

export interface SleepEntry {
  /** Wake time, epoch ms. */
  until: number;
  /** The failure class that put the key to sleep (`auth`, `timeout`, …, or `manual`). */
  failure: string;
  /** How many times in a row the key has slept. */
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
    switched: (ownerId: string | bigint) => `${prefix}switch:${ownerId}`,
    levelFailures: (ownerId: string | bigint, level: number) => `${prefix}lvlfail:${ownerId}:${level}`,
  };
}

/** The field of a (key, model) sleep: key ids hold no `|`, so any model name reads back. */
export function keyModelField(keyId: string | bigint, model: string): string {
  return `${keyId}|${model}`;
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
