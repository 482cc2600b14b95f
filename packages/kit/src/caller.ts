/**
 * The caller identity the edge hands to the proxy when it asks for a routing decision on an
 * owner's behalf (`GET /x-route`). The edge has authenticated the key; the proxy trusts this
 * header only together with the internal token.
 */
export const CALLER_HEADER = 'x-gw-account';

/** The path of a raw request's URL, without its query (the proxy's listeners route by it). */
export function pathOf(url: string | undefined): string {
  return (url ?? '/').split('?')[0] ?? '/';
}

/** The AI paths: every OpenAI-style path under /v1/ plus the /models aliases. */
export function isAiPath(path: string): boolean {
  return path.startsWith('/v1/') || path === '/models' || path.startsWith('/models/');
}

/** The realtime WebSocket endpoint (the proxy serves it). */
export const REALTIME_PATH = '/v1/realtime';

export interface CallerIdentity {
  /** Account id, decimal string (int64). */
  accountId: string;
  /** The owner whose key pool and configuration serve this account (root serves itself). */
  ownerId: string;
  /** Space-separated model patterns (`*` suffix wildcards); empty means every model. */
  allowModels: string;
  /** Level allowlist (comma or space separated); empty means every Level. */
  allowLevels: string;
  /** Per-account `<pattern>=<model>` pairs, applied before the owner's MODEL_MAPPER. */
  modelMapper: string;
  /** Per-account `<pattern>=<Level>` pairs (set by the owner), routing ahead of its LEVEL_MAPPER. */
  levelMapper: string;
  /** Resource allowlist (catalogue paths, comma or space separated); empty allows all inference. */
  resources: string;
  /**
   * The account's rate limits: its own, or where it sets none the smallest its ancestors set
   * (absent or 0: unlimited).
   */
  limits: Partial<Record<'rpm' | 'rph' | 'rpd' | 'tpm' | 'tph' | 'tpd', number>>;
  /** The account's ModelLimits, as JSON text (`{ "<pattern>": { rpm, …, tpd } }`); '' for none. */
  modelLimits: string;
  /**
   * What the account's ancestors impose (docs/decisions.md §13): each ancestor's non-empty list,
   * nearest first. The account may use a model, Level or resource only when its own list and
   * every list here allow it.
   */
  inherited: InheritedLists;
  /**
   * What the account may spend, as its cached account said at authentication (docs/decisions.md
   * §1): the proxy reserves each call's estimated cost against it. Absent for root (it mints
   * credit): no reservation then.
   */
  spend?: CallerSpend;
}

/** Amounts are integer nano-USD as decimal strings (bigint does not survive JSON). */
export interface CallerSpend {
  balanceNano: string;
  /** USER_API_BALANCE: calls are admitted only while the balance stays above it. */
  floorNano: string;
  /** The account's Rates and Factor, which multiply every price. */
  rates: number;
  factor: number;
}

/** A spend as sent: integer amounts and finite positive multipliers, or absent. */
function spendOf(value: unknown): CallerSpend | undefined | false {
  if (value === undefined) {
    return undefined;
  }
  const record = (value ?? {}) as Record<string, unknown>;
  const { balanceNano, floorNano, rates, factor } = record;
  const amount = (text: unknown) => typeof text === 'string' && /^-?\d{1,30}$/.test(text);
  const multiplier = (number: unknown) =>
    typeof number === 'number' && Number.isFinite(number) && number >= 0;
  return amount(balanceNano) && amount(floorNano) && multiplier(rates) && multiplier(factor)
    ? {
        balanceNano: String(balanceNano),
        floorNano: String(floorNano),
        rates: Number(rates),
        factor: Number(factor),
      }
    : false;
}

export interface InheritedLists {
  allowModels: string[];
  allowLevels: string[];
  resources: string[];
  /** Each ancestor's non-empty ModelLimits as JSON text, nearest first: they bind the account too. */
  modelLimits: string[];
}

export const NO_INHERITED: InheritedLists = {
  allowModels: [],
  allowLevels: [],
  resources: [],
  modelLimits: [],
};

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
}

/** An edge from before `inherited` existed leaves it out: that caller has no ancestor lists. */
function inheritedOf(value: unknown): InheritedLists | undefined {
  if (value === undefined) {
    return NO_INHERITED;
  }
  if (typeof value !== 'object' || value === null) {
    return undefined;
  }
  const record = value as Record<string, unknown>;
  const allowModels = stringList(record.allowModels);
  const allowLevels = stringList(record.allowLevels);
  const resources = stringList(record.resources);
  // An edge from before inherited ModelLimits existed leaves them out: none are imposed.
  const modelLimits = stringList(record.modelLimits ?? []);
  return allowModels && allowLevels && resources && modelLimits
    ? { allowModels, allowLevels, resources, modelLimits }
    : undefined;
}

export function encodeCaller(caller: CallerIdentity): string {
  return Buffer.from(JSON.stringify(caller), 'utf8').toString('base64');
}

/** Undefined when the header is missing or malformed. */
export function decodeCaller(header: string | undefined): CallerIdentity | undefined {
  if (!header) {
    return undefined;
  }
  try {
    const value = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as Record<string, unknown>;
    const fields = ['accountId', 'ownerId', 'allowModels', 'allowLevels', 'modelMapper'] as const;
    // An edge from before `resources` and the limits existed leaves them out: none apply.
    const resources = value.resources ?? '';
    // An edge from before the account's LevelMapper was sent leaves it out: none applies.
    const levelMapper = value.levelMapper ?? '';
    const modelLimits = value.modelLimits ?? '';
    const limits = readLimits(value.limits);
    const inherited = inheritedOf(value.inherited);
    const spend = spendOf(value.spend);
    if (
      spend === false ||
      typeof resources !== 'string' ||
      typeof levelMapper !== 'string' ||
      typeof modelLimits !== 'string' ||
      !limits ||
      inherited === undefined ||
      !fields.every((field) => typeof value[field] === 'string') ||
      !/^\d+$/.test(String(value.accountId)) ||
      !/^\d+$/.test(String(value.ownerId))
    ) {
      return undefined;
    }
    return {
      accountId: String(value.accountId),
      ownerId: String(value.ownerId),
      allowModels: String(value.allowModels),
      allowLevels: String(value.allowLevels),
      modelMapper: String(value.modelMapper),
      levelMapper,
      resources,
      limits,
      modelLimits,
      inherited,
      ...(spend ? { spend } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Rate limits as sent: an object of whole numbers, or absent. */
function readLimits(value: unknown): CallerIdentity['limits'] | undefined {
  if (value === undefined) {
    return {};
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return undefined;
  }
  const limits: CallerIdentity['limits'] = {};
  for (const field of ['rpm', 'rph', 'rpd', 'tpm', 'tph', 'tpd'] as const) {
    const amount = (value as Record<string, unknown>)[field];
    if (typeof amount === 'number' && Number.isSafeInteger(amount) && amount > 0) {
      limits[field] = amount;
    }
  }
  return limits;
}
