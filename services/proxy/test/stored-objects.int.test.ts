import { describe, expect, it } from 'vitest';
import { json, useForwardingProxy } from './forwarding-fixture.js';

/**
 * The owner's upstream keys are shared by every tenant: a response stored upstream by one account
 * must not be a starting point for another's (`previous_response_id`, `conversation`).
 */
describe('POST /v1/responses: stored responses and conversations belong to the account that made them', () => {
  const proxy = useForwardingProxy();
  const alice = { accountId: '21' };
  const bob = { accountId: '22' };

  const create = async (caller: { accountId: string }, extra: Record<string, unknown> = {}) => {
    const response = await proxy.call('/v1/responses', {
      caller,
      ...json({ model: 'm', input: 'hello', ...extra }),
    });
    return {
      status: response.status,
      body: (await response.json()) as { id?: string; error?: { code: string } },
    };
  };

  it('lets the account that made a response build on it, and nobody else', async () => {
    proxy.useKeys([{ secret: 'stored-1' }]);
    const first = await create(alice);
    expect(first.status).toBe(200);
    const id = first.body.id ?? '';
    expect(id).toMatch(/^resp_/);

    const upstreamBefore = proxy.mock.requests.length;
    const foreign = await create(bob, { previous_response_id: id });
    expect({ status: foreign.status, code: foreign.body.error?.code }).toEqual({
      status: 404,
      code: 'not_found',
    });
    expect(proxy.mock.requests.length).toBe(upstreamBefore);

    const own = await create(alice, { previous_response_id: id });
    expect(own.status).toBe(200);
  });

  it('refuses ids made outside the gateway and conversations nobody made here, before upstream', async () => {
    proxy.useKeys([{ secret: 'stored-2' }]);
    const upstreamBefore = proxy.mock.requests.length;
    for (const extra of [
      { previous_response_id: 'resp_made_elsewhere' },
      { conversation: 'conv_made_elsewhere' },
      { conversation: { id: 'conv_made_elsewhere' } },
    ]) {
      const answer = await create(alice, extra);
      expect({ extra, status: answer.status }).toEqual({ extra, status: 404 });
    }
    expect(proxy.mock.requests.length).toBe(upstreamBefore);
  });
});
