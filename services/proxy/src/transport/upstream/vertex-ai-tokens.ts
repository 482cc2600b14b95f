import { createSign } from 'node:crypto';
import { AppError, ErrorCode } from '@gw/kit';
import type { PoolKey } from '../../domain/pool.js';

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
/** Refresh this long before the token expires. */
const EARLY_MS = 60_000;

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

/** The signed JWT a service account exchanges for an access token (RFC 7523, RS256). */
export function serviceAccountAssertion(
  clientEmail: string,
  privateKey: string,
  audience: string,
  nowSeconds: number,
): string {
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const claims = base64url(
    JSON.stringify({
      iss: clientEmail,
      sub: clientEmail,
      scope: SCOPE,
      aud: audience,
      iat: nowSeconds,
      exp: nowSeconds + 3600,
    }),
  );
  const signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(privateKey);
  return `${header}.${claims}.${base64url(signature)}`;
}

/**
 * Access tokens for Google Vertex AI (`cloud_b`) keys: a JWT signed with the key's `private_key` is exchanged at the
 * token endpoint; the token is cached per key until shortly before it expires, and one exchange
 * runs at a time per key.
 */
export class VertexAiTokens {
  private readonly cache = new Map<string, { token: Promise<string>; expiresAt: number }>();

  constructor(
    private readonly tokenUrl: string,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: PoolKey): Promise<string> {
    const email = typeof key.config.client_email === 'string' ? key.config.client_email : '';
    const cacheKey = `${key.id}:${email}`;
    const cached = this.cache.get(cacheKey);
    if (cached && cached.expiresAt - EARLY_MS > this.now()) {
      return cached.token;
    }
    const entry = {
      token: this.exchange(key, (expiresAt) => (entry.expiresAt = expiresAt)),
      expiresAt: this.now() + EARLY_MS + 5_000,
    };
    this.cache.set(cacheKey, entry);
    entry.token.catch(() => {
      if (this.cache.get(cacheKey) === entry) {
        this.cache.delete(cacheKey);
      }
    });
    return entry.token;
  }

  private async exchange(key: PoolKey, setExpiry: (at: number) => void): Promise<string> {
    const { client_email: email, private_key: privateKey } = key.config;
    if (typeof email !== 'string' || typeof privateKey !== 'string') {
      throw new AppError(ErrorCode.Unavailable, 'Vertex AI key has no client_email or private_key', {
        reason: `Vertex AI key ${key.id}`,
      });
    }
    const assertion = serviceAccountAssertion(
      email,
      privateKey,
      this.tokenUrl,
      Math.floor(this.now() / 1000),
    );
    const response = await fetch(this.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion,
      }).toString(),
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) {
      throw new AppError(ErrorCode.Unavailable, `token endpoint answered ${response.status}`, {
        reason: `cloud_b key ${key.id}`,
      });
    }
    const body = (await response.json()) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== 'string') {
      throw new AppError(ErrorCode.Unavailable, 'token endpoint sent no access_token', {
        reason: `cloud_b key ${key.id}`,
      });
    }
    setExpiry(this.now() + (typeof body.expires_in === 'number' ? body.expires_in : 3600) * 1000);
    return body.access_token;
  }
}
