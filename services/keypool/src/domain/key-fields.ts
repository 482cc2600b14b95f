import { AppError, ErrorCode, ProviderType, readKeyConfig, type KeyConfig } from '@gw/kit';
import { MAX_LEVEL, MIN_LEVEL, MIN_SECRET_LENGTH, type KeyRecord, type KeyRow } from './model.js';
import type { KeypoolDeps } from './ports/deps.js';
import {
  checkProviderConfig,
  VERTEX_AI_SECRET_LENGTH,
  type ParsedProviderConfig,
} from './provider-config.js';
import {
  checkProviderUrl,
  checkResolvedAddress,
  normalizedProvider,
  type ProviderUrlPolicy,
} from './provider-url.js';
import { aad, lastFour, openStoredSecret } from './secrets.js';

/** The fields of a create or update, as received (types already checked by the transport). */
export interface KeyFieldsInput {
  name?: string;
  level?: number;
  provider?: string;
  secretKey?: string;
  status?: boolean;
  /**
   * The key's Config; as text, the JSON object an edge that predates the typed field sends ('' is
   * the standard type). Unset: kept on update, the standard type on create.
   */
  config?: KeyConfig | string;
}

function invalid(field: string, reason: string): never {
  throw new AppError(ErrorCode.InvalidRequest, `${field}: ${reason}`, { field });
}

/** Provider (or Config.base_url): the URL policy, then every address its name resolves to. */
export async function checkUrlField(
  deps: KeypoolDeps,
  field: string,
  value: string,
  ownerIsRoot: boolean,
): Promise<URL> {
  const policy: ProviderUrlPolicy = {
    rootPool: ownerIsRoot,
    self: deps.self,
    tenantPrivate: deps.tenantPrivate,
  };
  const check = checkProviderUrl(value, policy);
  if (!check.ok) {
    invalid(field, check.reason);
  }
  if (!/^[\d.]+$|:/.test(check.host)) {
    const addresses = await deps.resolver.resolve(check.host);
    for (const address of addresses ?? []) {
      const reason = checkResolvedAddress(address, check.port, policy);
      if (reason) {
        invalid(field, reason);
      }
    }
  }
  return check.url;
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (Array.from(trimmed).length > 256 || /\p{Cc}/u.test(trimmed)) {
    invalid('Name', 'must be at most 256 characters without control characters');
  }
  return trimmed;
}

function checkLevel(level: number): number {
  if (!Number.isInteger(level) || level < MIN_LEVEL || level > MAX_LEVEL) {
    invalid('Level', `must be an integer from ${MIN_LEVEL} to ${MAX_LEVEL}`);
  }
  return level;
}

function checkSecret(secret: string, providerType: string): string {
  if (/[\s\p{Cc}]/u.test(secret) || secret.length > 8192) {
    invalid('SecretKey', 'must be printable, without spaces, at most 8192 characters');
  }
  if (providerType === ProviderType.VertexAi) {
    if (secret.length !== VERTEX_AI_SECRET_LENGTH) {
      invalid(
        'SecretKey',
        `must be a ${VERTEX_AI_SECRET_LENGTH}-character placeholder for the cloud_b (Google Vertex AI) provider type`,
      );
    }
  } else if (secret.length < MIN_SECRET_LENGTH) {
    invalid('SecretKey', `must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  return secret;
}

function configFromJson(text: string): KeyConfig {
  let raw: unknown;
  try {
    raw = text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    invalid('Config', 'must be a JSON object');
  }
  const read = readKeyConfig(raw);
  if (!read.ok) {
    invalid(read.field, read.reason);
  }
  return read.config;
}

function checkConfig(config: KeyConfig): ParsedProviderConfig {
  const check = checkProviderConfig(config);
  if (!check.ok) {
    invalid(check.field, check.reason);
  }
  return check.config;
}

/**
 * Validates the fields of a create (existing undefined) or an update and returns the row
 * changes, with the secret and sensitive Config fields sealed for this owner.
 */
export async function keyRowChanges(
  deps: KeypoolDeps,
  ownerId: bigint,
  ownerIsRoot: boolean,
  fields: KeyFieldsInput,
  existing: KeyRecord | undefined,
): Promise<Partial<KeyRow>> {
  const changes: Partial<KeyRow> = {};
  if (fields.name !== undefined) {
    changes.name = checkName(fields.name);
  }
  if (fields.level !== undefined) {
    changes.level = checkLevel(fields.level);
  }
  if (fields.provider !== undefined) {
    const url = await checkUrlField(deps, 'Provider', fields.provider, ownerIsRoot);
    changes.provider = normalizedProvider(url);
    changes.providerHost = url.hostname.toLowerCase().replace(/\.+$/, '');
  }
  let providerType = existing?.providerType ?? 'standard';
  const given = typeof fields.config === 'string' ? configFromJson(fields.config) : fields.config;
  // Unset: an update keeps the stored Config, a create stores the standard type.
  const keyConfig = given ?? (existing ? undefined : {});
  if (keyConfig !== undefined) {
    const config = checkConfig(keyConfig);
    for (const url of config.urls) {
      await checkUrlField(deps, url.field, url.value, ownerIsRoot);
    }
    providerType = config.providerType;
    changes.providerType = config.providerType;
    changes.config = config.visible;
    changes.configSecretsEnc =
      Object.keys(config.sensitive).length === 0
        ? ''
        : deps.box.seal(JSON.stringify(config.sensitive), aad.config(ownerId));
  }
  if (fields.secretKey !== undefined) {
    const secret = checkSecret(fields.secretKey, providerType);
    changes.secretEnc = deps.box.seal(secret, aad.secret(ownerId));
    changes.secretLast4 = lastFour(secret);
  } else if (
    existing &&
    changes.providerType !== undefined &&
    changes.providerType !== existing.providerType
  ) {
    // The type changed under a kept secret: the kept one must still meet the new type's rule.
    checkSecret(openStoredSecret(deps.box, existing), providerType);
  }
  if (fields.status !== undefined) {
    changes.status = fields.status;
  }
  return changes;
}
