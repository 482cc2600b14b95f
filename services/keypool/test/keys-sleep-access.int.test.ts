import { createUser, expectError, putKeyToSleep } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { useKeysGateway } from './keys-fixture.js';

describe('provider keys: sleeping keys and who may call the key routes', () => {
  const kp = useKeysGateway();
  const { addKey } = kp;

  it('reads sleeping keys from Redis, as the proxies write them, and wakes them', async () => {
    const { key } = await addKey();
    await putKeyToSleep(kp.gw, { ownerId: kp.rootOwner, keyId: key.ID, step: 2 });
    const listed = await kp.client.listSleepingKeys({ ownerId: kp.rootOwner });
    const entry = listed.keys.find((sleeping) => sleeping.keyId === BigInt(key.ID));
    expect(entry).toMatchObject({ keyId: BigInt(key.ID), sleepTimes: 2, model: '' });
    expect(Number(entry?.remainingMs)).toBeGreaterThan(800_000);
    expect(Number(entry?.remainingMs)).toBeLessThanOrEqual(900_000);
    expect((await kp.client.listSleepingKeys({ ownerId: 999_999n })).keys).toEqual([]);
    const woken = await kp.client.wakeKeys({ ownerId: kp.rootOwner, keyIds: [] });
    expect(woken.woken).toBe(1);
    expect((await kp.client.listSleepingKeys({ ownerId: kp.rootOwner })).keys).toEqual([]);
  });

  it('refuses a non-owner key with 403 on every owner route, and no key with 401', async () => {
    const user = await createUser(kp.gw, { name: 'keysuser1' });
    const routes: Array<[string, string]> = [
      ['GET', '/x-keys'],
      ['POST', '/x-keys'],
      ['GET', '/x-keys/1'],
      ['GET', '/x-keys/L1'],
      ['GET', '/x-keys/api.example.com'],
      ['PUT', '/x-keys/1'],
      ['POST', '/x-keys/1'],
      ['DELETE', '/x-keys/1'],
      ['GET', '/x-gkey'],
      ['GET', '/x-ekey/abcdef'],
      ['GET', '/x-dkey/gw1.abcdef'],
    ];
    for (const [method, path] of routes) {
      const json = method === 'GET' || method === 'DELETE' ? undefined : { Name: 'x' };
      await expectError(await kp.gw.request(path, { method, key: user.key, json }), 403, 'forbidden');
      await expectError(await kp.gw.request(path, { method, key: null, json }), 401, 'unauthenticated');
    }
  });
});
