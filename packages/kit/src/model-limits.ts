import type { common } from '@gw/proto';

/**
 * ModelLimits — an account's, and an owner's MODEL_LIMITS — between its JSON form
 * `{ "<model_pattern>": { rpm, rph, rpd, tpm, tph, tpd } }` (each limit optional) and the
 * contract's `gw.common.v1.ModelLimits`, whose entries keep the members' order.
 */
export const LIMIT_NAMES = ['rpm', 'rph', 'rpd', 'tpm', 'tph', 'tpd'] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
export type ModelLimitsObject = Record<string, Partial<Record<LimitName, number>>>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The JSON form → the contract. The form is checked where it is written (the edge, the config
 * service); what it cannot carry — a member that is not an object, a limit that is not a safe
 * integer, a name other than the six — is left out.
 */
export function toModelLimitsMessage(limits: Readonly<Record<string, unknown>>): common.ModelLimits {
  return {
    entries: Object.entries(limits).map(([pattern, value]) => {
      const rateLimits: common.RateLimits = {};
      if (isPlainObject(value)) {
        for (const name of LIMIT_NAMES) {
          const amount = value[name];
          if (typeof amount === 'number' && Number.isSafeInteger(amount)) {
            rateLimits[name] = BigInt(amount);
          }
        }
      }
      return { pattern, limits: rateLimits };
    }),
  };
}

/** The contract → the JSON form, members in the entries' order, limits in LIMIT_NAMES order. */
export function fromModelLimitsMessage(limits: common.ModelLimits): ModelLimitsObject {
  return Object.fromEntries(
    limits.entries.map(({ pattern, limits: rateLimits }) => [
      pattern,
      Object.fromEntries(
        LIMIT_NAMES.flatMap((name) => {
          const amount = rateLimits?.[name];
          return amount === undefined ? [] : [[name, Number(amount)]];
        }),
      ),
    ]),
  );
}

/**
 * An account's ModelLimits as the JSON form: the typed field, or the JSON of an accounts service
 * that predates it (docs/adr/0006-typed-contract-fields.md).
 */
export function accountModelLimits(account: {
  modelLimits?: common.ModelLimits | undefined;
  modelLimitsJson: string;
}): ModelLimitsObject {
  if (account.modelLimits) {
    return fromModelLimitsMessage(account.modelLimits);
  }
  return JSON.parse(account.modelLimitsJson || '{}') as ModelLimitsObject;
}
