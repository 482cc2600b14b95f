import { describe, expect, it } from 'vitest';
import { checkAgainstDocument } from './openapi-check.js';

const BASE = 'http://127.0.0.1:1';
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
const error = (code: string, type: string) => ({ error: { message: 'no', type, code } });

describe('checkAgainstDocument', () => {
  it('accepts an answer that matches its route, status and schema, in any letter case', async () => {
    await checkAgainstDocument('GET', `${BASE}/livez`, json(200, { status: 'ok' }));
    await checkAgainstDocument(
      'DELETE',
      `${BASE}/X-KEYS/7/`,
      json(200, { success: true, Action: 'delete', ID: 7 }),
    );
    await checkAgainstDocument('GET', `${BASE}/x-keys/7`, json(404, error('not_found', 'not_found_error')));
  });

  it('refuses a body that does not match the schema of its status', async () => {
    await expect(
      checkAgainstDocument('GET', `${BASE}/livez`, json(200, { status: 'ok', extra: 1 })),
    ).rejects.toThrow(/does not match/);
    await expect(
      checkAgainstDocument(
        'DELETE',
        `${BASE}/x-keys/7`,
        json(200, { success: true, Action: 'delete', ID: '7' }),
      ),
    ).rejects.toThrow(/does not match/);
    await expect(
      checkAgainstDocument(
        'GET',
        `${BASE}/x-keys/7`,
        json(404, { error: { message: 'no', code: 'not_found' } }),
      ),
    ).rejects.toThrow(/does not match/);
  });

  it('refuses a status, a content type, a route or a method the document does not list', async () => {
    await expect(
      checkAgainstDocument('GET', `${BASE}/livez`, json(418, error('internal', 'api_error'))),
    ).rejects.toThrow(/lists no 418/);
    await expect(
      checkAgainstDocument(
        'GET',
        `${BASE}/livez`,
        new Response('ok', { headers: { 'content-type': 'text/plain' } }),
      ),
    ).rejects.toThrow(/text\/plain/);
    await expect(checkAgainstDocument('GET', `${BASE}/x-nothing`, json(200, {}))).rejects.toThrow(/not in/);
    await expect(checkAgainstDocument('PATCH', `${BASE}/x-users/1`, json(200, {}))).rejects.toThrow(/not in/);
  });

  it('leaves the AI endpoints under /v1 alone', async () => {
    await checkAgainstDocument('POST', `${BASE}/v1/chat/completions`, json(200, { anything: true }));
  });
});
