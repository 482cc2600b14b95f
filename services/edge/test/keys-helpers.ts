import { randomBytes } from 'node:crypto';
import type { Gateway } from '@gw/testkit';
import { expect } from 'vitest';

export interface ErrorBody {
  error: { message: string; type: string; code: string };
}

/** Per-gateway Redis prefix and a public URL, so parallel runs never share key state. */
export function keyTestEnv(): Record<string, string> {
  return {
    GW_KEY_STATE_PREFIX: `gw-test-${randomBytes(6).toString('hex')}:`,
    GW_PUBLIC_URL: 'https://gateway.example.test',
  };
}

export async function expectError(
  response: Response,
  status: number,
  code: string,
  mentions?: string,
): Promise<ErrorBody> {
  const body = (await response.json()) as ErrorBody;
  expect({ status: response.status, body }).toMatchObject({ status, body: { error: { code } } });
  if (mentions) {
    expect(body.error.message).toContain(mentions);
  }
  return body;
}

/** A plain (non-owner) subaccount of root. */
export async function createUser(gw: Gateway, name: string): Promise<{ id: number; key: string }> {
  const response = await gw.request('/x-users', {
    method: 'POST',
    json: { Name: name, Email: `${name}@example.com`, CreditGranted: 5 },
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { User: { ID: number; SecretKey: string } };
  return { id: body.User.ID, key: body.User.SecretKey };
}

export function randomSecret(length = 40): string {
  return `sk-${randomBytes(64).toString('base64url')}`.slice(0, length);
}
