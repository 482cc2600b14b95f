/**
 * The caller identity the edge hands to the proxy with every AI request it forwards. The edge
 * has authenticated the key; the proxy trusts this header only together with the internal token
 * and strips both before anything goes upstream.
 */
export const CALLER_HEADER = 'x-gw-account';

/** The AI paths of the hop: every OpenAI-style path under /v1/ plus the /models aliases. */
export function isAiPath(path: string): boolean {
  return path.startsWith('/v1/') || path === '/models' || path.startsWith('/models/');
}

/** The realtime WebSocket endpoint, on the edge and on the proxy behind it. */
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
  /** Resource allowlist (catalogue paths, comma or space separated); empty allows all inference. */
  resources: string;
  /** The account's own rate limits (absent or 0: unlimited). */
  limits: Partial<Record<'rpm' | 'rph' | 'rpd' | 'tpm' | 'tph' | 'tpd', number>>;
  /** The account's ModelLimits, as JSON text (`{ "<pattern>": { rpm, …, tpd } }`); '' for none. */
  modelLimits: string;
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
    const modelLimits = value.modelLimits ?? '';
    const limits = readLimits(value.limits);
    if (
      typeof resources !== 'string' ||
      typeof modelLimits !== 'string' ||
      !limits ||
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
      resources,
      limits,
      modelLimits,
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
