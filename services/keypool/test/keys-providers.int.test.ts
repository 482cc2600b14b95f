import { expectError, freePort, randomSecret } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { useKeysGateway } from './keys-fixture.js';

describe('provider keys: Provider addresses and owners kept apart', () => {
  const kp = useKeysGateway();
  const { addKey, createKey, list } = kp;

  it("refuses Providers pointing at the gateway's own addresses or metadata; allows loopback and private ranges for root", async () => {
    const edgePort = new URL(kp.gw.baseUrl).port;
    expect(kp.gw.env.GW_EDGE_PORT).toBe(edgePort);
    const listenPorts = [
      'ACCOUNTS_ADDR',
      'BILLING_ADDR',
      'KEYPOOL_ADDR',
      'CONFIG_ADDR',
      'NEWS_ADDR',
      'MAILER_ADDR',
      'PROXY_ADDR',
      'EDGE_ADDR',
    ].map((variable) => {
      const address = kp.gw.env[variable] ?? '';
      expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
      return address.slice(address.lastIndexOf(':') + 1);
    });
    const refused = [
      `http://127.0.0.1:${edgePort}`,
      `http://127.0.0.2:${edgePort}/`,
      `http://localhost:${edgePort}/v1`,
      `http://[::1]:${edgePort}/`,
      `http://[::ffff:7f00:1]:${edgePort}/`,
      `http://0x7f.1:${edgePort}/`,
      ...listenPorts.map((port) => `http://127.0.0.1:${port}/v1`),
      ...listenPorts.map((port) => `http://localhost.:${port}`),
      'http://0/',
      'http://[::]/',
      `http://0.0.0.0:${await freePort()}/`,
      'http://evil@127.0.0.1/',
      'http://169.254.169.254/',
      'http://[fd00:ec2::254]/',
      'http://[fe80::1]/',
      'https://gateway.example.test/v1',
      'file:///etc/passwd',
      'gopher://example.com/',
      'ftp://example.com/',
      'data:text/plain,x',
    ];
    for (const provider of refused) {
      await expectError(
        await createKey({ SecretKey: randomSecret(), Level: 1, Provider: provider }),
        400,
        'invalid_request',
        'Provider',
      );
    }
    const { key } = await addKey();
    await expectError(
      await kp.gw.request(`/x-keys/${key.ID}`, {
        method: 'PUT',
        json: { Provider: `http://[::1]:${edgePort}` },
      }),
      400,
      'invalid_request',
      'Provider',
    );
    // Root's own pool: self-hosted models on loopback (other ports) and private ranges are allowed.
    const modelPort = await freePort();
    const allowed = [
      `http://127.0.0.1:${modelPort}/v1`,
      `http://localhost:${modelPort}`,
      `http://[::1]:${modelPort}/`,
      'http://127.1/',
      'http://127.0.0.1#@x.example/',
      'http://10.0.0.5:8000/v1',
      'http://192.168.1.20:11434',
      'http://172.16.3.4/',
    ];
    for (const provider of allowed) {
      const response = await createKey({ SecretKey: randomSecret(), Level: 1, Provider: provider });
      expect(response.status, `${provider}: ${await response.clone().text()}`).toBe(200);
    }
    expect(
      (
        await kp.gw.request(`/x-keys/${key.ID}`, {
          method: 'PUT',
          json: { Provider: `http://127.0.0.1:${modelPort}/v1` },
        })
      ).status,
    ).toBe(200);
    // The snapshot tells the proxies this is root's pool (they apply the same rule at connect time).
    expect((await kp.client.getSnapshot({ ownerId: kp.rootOwner })).ownerIsRoot).toBe(true);
  });

  it('keeps owners apart: another owner cannot see, change or delete these keys (gRPC, as a tenant owner would)', async () => {
    const { key } = await addKey();
    const other = 999_998n;
    expect((await kp.client.listKeys({ ownerId: other, provider: '', page: 1, size: 100 })).keys).toEqual([]);
    expect((await kp.client.getSnapshot({ ownerId: other })).keys).toEqual([]);
    await expect(kp.client.getKey({ ownerId: other, id: BigInt(key.ID) })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(
      kp.client.updateKey({
        ownerId: other,
        ownerIsRoot: false,
        operatorId: other,
        ipAddress: '',
        id: BigInt(key.ID),
        fields: { status: false },
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      kp.client.deleteKey({ ownerId: other, operatorId: other, ipAddress: '', id: BigInt(key.ID) }),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect((await list(`/x-keys/${key.ID}`)).keys[0]).toMatchObject({ ID: key.ID, Status: true });
    // A tenant owner's pool may not use loopback or private ranges (root's may).
    const modelPort = await freePort();
    for (const provider of [
      'http://10.0.0.5/',
      `http://127.0.0.1:${modelPort}/v1`,
      `http://localhost:${modelPort}`,
      `http://[::1]:${modelPort}/`,
      'http://127.1/',
    ]) {
      await expect(
        kp.client.createKey({
          ownerId: other,
          ownerIsRoot: false,
          operatorId: other,
          ipAddress: '',
          fields: { secretKey: randomSecret(), level: 1, provider },
        }),
      ).rejects.toMatchObject({ code: 'invalid_request' });
    }
    const tenantKey = await kp.client.createKey({
      ownerId: other,
      ownerIsRoot: false,
      operatorId: other,
      ipAddress: '',
      fields: { secretKey: randomSecret(), level: 1, provider: 'https://api.example.com/v1' },
    });
    await expect(
      kp.client.updateKey({
        ownerId: other,
        ownerIsRoot: false,
        operatorId: other,
        ipAddress: '',
        id: tenantKey.key?.id ?? 0n,
        fields: { provider: `http://127.0.0.1:${modelPort}/v1` },
      }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    expect((await kp.client.getSnapshot({ ownerId: other })).ownerIsRoot).toBe(false);
    await kp.client.deleteKey({
      ownerId: other,
      operatorId: other,
      ipAddress: '',
      id: tenantKey.key?.id ?? 0n,
    });
  });
});
