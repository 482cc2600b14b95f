import { randomBytes } from 'node:crypto';
import { toHttp, type ErrorCode } from '@gw/kit';
import { expect } from 'vitest';
import type { Gateway } from './gateway.js';

/** The spec's error shape. */
export interface ErrorBody {
  error: { message: string; type: string; code: string };
}

/**
 * Asserts an answer in the spec's error shape: this status, this code, and exactly the `type`
 * the kit's one mapping gives that code (and a message naming `mentions`, when given). Returns
 * the body.
 */
export async function expectError(
  response: Response,
  status: number,
  code: ErrorCode,
  mentions?: string,
): Promise<ErrorBody> {
  const body = (await response.json()) as ErrorBody;
  expect({ status: response.status, code: body.error.code, type: body.error.type }).toEqual({
    status,
    code,
    type: toHttp(code).type,
  });
  expect(toHttp(code).status).toBe(status);
  expect(typeof body.error.message).toBe('string');
  if (mentions) {
    expect(body.error.message).toContain(mentions);
  }
  return body;
}

export interface Created {
  id: number;
  key: string;
  name: string;
  dna: string;
}

let counter = 0;

/** A unique valid name (4-63 chars with a letter). */
export function uniqueName(prefix = 'user'): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${counter}`;
}

/** Creates a subaccount of `parentKey` (root by default) through POST /x-users. */
export async function createUser(
  gw: Gateway,
  options: {
    parentKey?: string;
    name?: string;
    email?: string;
    credit?: number;
    extra?: Record<string, unknown>;
  } = {},
): Promise<Created> {
  const name = options.name ?? uniqueName();
  const response = await gw.request('/x-users', {
    method: 'POST',
    key: options.parentKey ?? gw.rootKey,
    json: {
      Name: name,
      Email: options.email ?? `${name}@example.com`,
      CreditGranted: options.credit ?? 5,
      ...options.extra,
    },
  });
  const body = (await response.json()) as {
    User: { ID: number; SecretKey: string; Updates: { DNA: string } };
  } & ErrorBody;
  if (response.status !== 200) {
    throw new Error(`create ${name} failed: ${response.status} ${JSON.stringify(body)}`);
  }
  return { id: body.User.ID, key: body.User.SecretKey, name, dna: body.User.Updates.DNA };
}

/**
 * Gateway env that keeps a key in the edge's cache for an hour: within a test only
 * gw.account.changed can make an edge drop it, so a refusal shows the event arrived.
 */
export const AUTH_CACHE_UNTIL_EVENT: Record<string, string> = { GW_AUTH_CACHE_TTL_MS: String(60 * 60_000) };

/** Per-gateway Redis prefix for key state and a public URL (which a Provider may not point at). */
export function keyTestEnv(): Record<string, string> {
  return {
    GW_KEY_STATE_PREFIX: `gw-test-${randomBytes(6).toString('hex')}:`,
    GW_PUBLIC_URL: 'https://gateway.example.test',
  };
}

/** A random provider secret of `length` characters. */
export function randomSecret(length = 40): string {
  return `sk-${randomBytes(64).toString('base64url')}`.slice(0, length);
}
