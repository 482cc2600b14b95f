import { createUser, startGateway, type Gateway } from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A restarted service is reached again as soon as it serves: the edge's calls wait for their
 * connection (within their deadline) instead of failing while it reconnects.
 */
describe('the edge across a restart of a service it calls', () => {
  let gw: Gateway;

  beforeAll(async () => {
    gw = await startGateway();
  });

  afterAll(async () => {
    await gw.stop();
  });

  it('answers the first management call after accounts serves again, three restarts in a row', async () => {
    expect((await gw.request('/x-users')).status).toBe(200);
    for (let restart = 0; restart < 3; restart++) {
      await gw.restartService('accounts');
      // The first call that needs accounts, sent the moment it serves again.
      const created = await createUser(gw, { credit: 2 });
      expect(created.id).toBeGreaterThan(0);
    }
  });
});
