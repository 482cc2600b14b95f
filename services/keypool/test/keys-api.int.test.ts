import { createGrpcClient, type PromiseClient } from '@gw/kit';
import { keypool } from '@gw/proto';
import {
  createTestDatabase,
  createUser,
  expectError,
  freePort,
  keyTestEnv,
  randomSecret,
  startGateway,
  startProcess,
  waitFor,
  type Gateway,
  type TestDatabase,
} from '@gw/testkit';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface KeyRecord {
  ID: number;
  Name: string;
  Level: number;
  Provider: string;
  SecretKey: string;
  Status: boolean;
  Config: Record<string, unknown>;
}

const PEM =
  '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n';

describe('provider keys (/x-keys, /x-gkey, /x-ekey, /x-dkey)', () => {
  let gw: Gateway;
  let database: TestDatabase;
  let client: PromiseClient<keypool.KeypoolServiceClient>;
  let nc: NatsConnection;
  const seen: string[] = [];
  const secrets: string[] = [];
  let rootOwner: bigint;

  const createKey = async (json: Record<string, unknown>) => gw.request('/x-keys', { method: 'POST', json });
  const addKey = async (fields: Record<string, unknown> = {}) => {
    const secret = randomSecret();
    secrets.push(secret);
    const response = await createKey({
      SecretKey: secret,
      Level: 1,
      Provider: 'https://api.example.com/v1',
      ...fields,
    });
    expect(response.status).toBe(200);
    return { secret, key: ((await response.json()) as { Key: KeyRecord }).Key };
  };
  const list = async (path: string) => {
    const response = await gw.request(path);
    expect(response.status).toBe(200);
    return { response, keys: ((await response.json()) as { success: boolean; keys: KeyRecord[] }).keys };
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    gw = await startGateway({ databaseUrl: database.url, env: keyTestEnv() });
    client = createGrpcClient(
      keypool.KeypoolServiceClient,
      gw.env.KEYPOOL_ADDR ?? '',
      gw.env.GW_INTERNAL_TOKEN ?? '',
    );
    nc = await connect({ servers: gw.natsUrl });
    const subscription = nc.subscribe('gw.>');
    void (async () => {
      for await (const message of subscription) {
        seen.push(`${message.subject} ${new TextDecoder().decode(message.data)}`);
      }
    })();
    const me = (await (await gw.request('/dashboard/status')).json()) as { id: number };
    rootOwner = BigInt(me.id);
  });

  afterAll(async () => {
    (client as typeof client | undefined)?.close();
    await (nc as NatsConnection | undefined)?.drain();
    await (gw as Gateway | undefined)?.stop();
    await (database as TestDatabase | undefined)?.drop();
  });

  it('creates a key, answers it masked, and lists it by every filter', async () => {
    const { secret, key } = await addKey({ Name: 'primary', Level: 3, Provider: 'https://API.Example.com/' });
    expect(key).toMatchObject({
      Name: 'primary',
      Level: 3,
      Provider: 'https://api.example.com',
      Status: true,
      Config: {},
    });
    expect(key.SecretKey).toBe(`********${secret.slice(-4)}`);

    const all = await list('/x-keys');
    expect(all.keys.map((k) => k.ID)).toContain(key.ID);
    expect(JSON.stringify(all.keys)).not.toContain(secret.slice(0, 12));
    expect(all.response.headers.get('x-total-count')).toBe(String(all.keys.length));

    expect((await list(`/x-keys?id=${key.ID}`)).keys.map((k) => k.ID)).toEqual([key.ID]);
    expect((await list('/x-keys?level=3')).keys.every((k) => k.Level === 3)).toBe(true);
    expect((await list('/x-keys?provider=https://api.example.com/v9')).keys.map((k) => k.ID)).toContain(
      key.ID,
    );
    expect((await list('/x-keys?provider=api.example.com')).keys.map((k) => k.ID)).toContain(key.ID);
    expect((await list('/x-keys?provider=other.example.com')).keys).toEqual([]);
    expect((await list(`/x-keys/${key.ID}`)).keys.map((k) => k.ID)).toEqual([key.ID]);
    expect((await list('/x-keys/L3')).keys.map((k) => k.ID)).toContain(key.ID);
    expect((await list('/x-keys/L7')).keys).toEqual([]);
    expect((await list('/x-keys/api.example.com')).keys.map((k) => k.ID)).toContain(key.ID);
    await expectError(await gw.request('/x-keys/999999'), 404, 'not_found');
    await expectError(await gw.request('/x-keys/L12'), 400, 'invalid_request');
    await expectError(await gw.request('/x-keys?level=abc'), 400, 'invalid_request');
    await expectError(await gw.request('/x-keys?size=1001'), 400, 'invalid_request');
    await expectError(await gw.request('/x-keys?id=1&id=2'), 400, 'invalid_request');
  });

  it('writes add_key and delete_key to the owner operation log, without the secret', async () => {
    const { secret, key } = await addKey({
      Name: 'logged',
      Level: 2,
      Provider: 'https://logged.example.com/',
    });
    expect((await gw.request(`/x-keys/${key.ID}`, { method: 'DELETE' })).status).toBe(200);
    const entries = async (action: string) => {
      const response = await gw.request(`/dashboard/logs?action=${action}&target_id=${key.ID}`);
      return (
        (await response.json()) as { logs: Array<{ action: string; target_id: number; details: string }> }
      ).logs;
    };
    await waitFor(
      async () => (await entries('add_key')).length === 1 && (await entries('delete_key')).length === 1,
      'key entries in the log',
      5_000,
      50,
    );
    expect(JSON.stringify([...(await entries('add_key')), ...(await entries('delete_key'))])).not.toContain(
      secret.slice(-12),
    );
  });

  it('pages: only size means page 1, with the pagination headers', async () => {
    await addKey({ Level: 5 });
    await addKey({ Level: 5 });
    await addKey({ Level: 5 });
    const first = await list('/x-keys?level=5&size=2');
    expect(first.keys).toHaveLength(2);
    expect(first.response.headers.get('x-page')).toBe('1');
    expect(first.response.headers.get('x-per-page')).toBe('2');
    expect(first.response.headers.get('x-total-count')).toBe('3');
    expect(first.response.headers.get('x-total-pages')).toBe('2');
    const second = await list('/x-keys?level=5&size=2&page=2');
    expect(second.keys).toHaveLength(1);
    expect(second.keys[0]?.ID).not.toBe(first.keys[0]?.ID);
  });

  it('updates by PUT and POST, disables with Status false, and deletes', async () => {
    const { key } = await addKey();
    const newSecret = randomSecret(30);
    secrets.push(newSecret);
    const put = await gw.request(`/x-keys/${key.ID}`, {
      method: 'PUT',
      json: { Name: 'renamed', Status: false, SecretKey: newSecret },
    });
    expect(put.status).toBe(200);
    expect(((await put.json()) as { Key: KeyRecord }).Key).toMatchObject({
      Name: 'renamed',
      Status: false,
      SecretKey: `********${newSecret.slice(-4)}`,
    });
    const post = await gw.request(`/x-keys/${key.ID}`, {
      method: 'POST',
      json: {
        Level: 2,
        Config: {
          provider_type: 'cloud_a',
          model_mapping: { '*': 'dep-default', 'gpt-4*': 'dep4' },
          api_versions: { chat: '2024-10-21' },
        },
      },
    });
    expect(post.status).toBe(200);
    expect(((await post.json()) as { Key: KeyRecord }).Key).toMatchObject({
      Level: 2,
      Status: false,
      Config: { provider_type: 'cloud_a', model_mapping: { '*': 'dep-default' } },
    });
    await expectError(
      await gw.request('/x-keys/999999', { method: 'PUT', json: { Name: 'x' } }),
      404,
      'not_found',
    );
    await expectError(
      await gw.request(`/x-keys/${key.ID}`, { method: 'PUT', json: {} }),
      400,
      'invalid_request',
    );
    await expectError(
      await gw.request(`/x-keys/${key.ID}`, { method: 'PUT', json: { Balance: 5 } }),
      400,
      'invalid_request',
    );

    const deleted = await gw.request(`/x-keys/${key.ID}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    await expectError(await gw.request(`/x-keys/${key.ID}`), 404, 'not_found');
    await expectError(await gw.request(`/x-keys/${key.ID}`, { method: 'DELETE' }), 404, 'not_found');
  });

  it('validates every field and changes nothing on a refusal', async () => {
    const before = (await database.query<{ n: string }>('SELECT count(*) AS n FROM keypool.provider_keys'))[0]
      ?.n;
    const good = { SecretKey: randomSecret(), Level: 1, Provider: 'https://api.example.com' };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...good, SecretKey: 'x'.repeat(19) }, 'SecretKey'],
      [{ ...good, SecretKey: undefined }, 'SecretKey'],
      [{ ...good, Level: '1' }, 'Level'],
      [{ ...good, Level: 1.5 }, 'Level'],
      [{ ...good, Level: 10 }, 'Level'],
      [{ ...good, Level: undefined }, 'Level'],
      [{ ...good, Provider: undefined }, 'Provider'],
      [{ ...good, Provider: 'api.example.com' }, 'Provider'],
      [{ ...good, Status: 'yes' }, 'Status'],
      [{ ...good, Config: { provider_type: 'cloud_z' } }, 'Config.provider_type'],
      [{ ...good, Config: [1] }, 'Config'],
      [{ ...good, Config: 'cloud_a' }, 'Config'],
      [{ ...good, Config: { provider_type: 'cloud_a', model_mapping: 'x' } }, 'Config.model_mapping'],
      [
        { ...good, Config: { provider_type: 'cloud_a', api_versions: { video: 'v1' } } },
        'Config.api_versions.video',
      ],
      [
        {
          ...good,
          Config: {
            provider_type: 'cloud_b',
            base_url: 'https://b.example.com',
            project_id: 'p',
            client_email: 'a@b.example.com',
            private_key: PEM,
          },
        },
        'SecretKey',
      ],
      [
        {
          ...good,
          SecretKey: 'p'.repeat(51),
          Config: {
            provider_type: 'cloud_b',
            base_url: 'http://169.254.169.254/',
            project_id: 'p',
            client_email: 'a@b.example.com',
            private_key: PEM,
          },
        },
        'Config.base_url',
      ],
      [
        {
          ...good,
          SecretKey: 'p'.repeat(51),
          Config: {
            provider_type: 'cloud_b',
            base_url: 'https://b.example.com',
            project_id: 'p',
            client_email: 'a@b.example.com',
            private_key: 'nope',
          },
        },
        'Config.private_key',
      ],
      [{ ...good, Extra: 1 }, 'Extra'],
    ];
    for (const [body, field] of cases) {
      await expectError(await createKey(body), 400, 'invalid_request', field);
    }
    const after = (await database.query<{ n: string }>('SELECT count(*) AS n FROM keypool.provider_keys'))[0]
      ?.n;
    expect(after).toBe(before);
  });

  it("refuses Providers pointing at the gateway's own addresses or metadata; allows loopback and private ranges for root", async () => {
    const edgePort = new URL(gw.baseUrl).port;
    expect(gw.env.GW_EDGE_PORT).toBe(edgePort);
    const listenPorts = [
      'ACCOUNTS_ADDR',
      'BILLING_ADDR',
      'KEYPOOL_ADDR',
      'CONFIG_ADDR',
      'NEWS_ADDR',
      'MAILER_ADDR',
      'PROXY_ADDR',
    ].map((variable) => {
      const address = gw.env[variable] ?? '';
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
      await gw.request(`/x-keys/${key.ID}`, {
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
        await gw.request(`/x-keys/${key.ID}`, {
          method: 'PUT',
          json: { Provider: `http://127.0.0.1:${modelPort}/v1` },
        })
      ).status,
    ).toBe(200);
    // The snapshot tells the proxies this is root's pool (they apply the same rule at connect time).
    expect((await client.getSnapshot({ ownerId: rootOwner })).ownerIsRoot).toBe(true);
  });

  it('stores no plaintext secret or private key, and serves them only in the gRPC snapshot', async () => {
    const placeholder = `cb-${randomSecret(48)}`.slice(0, 51);
    secrets.push(placeholder);
    const created = await createKey({
      SecretKey: placeholder,
      Level: 4,
      Provider: 'https://b.example.com',
      config: {
        provider_type: 'cloud_b',
        base_url: 'https://eu.b.example.com/v1/projects/p/locations/l',
        project_id: 'proj-1',
        client_email: 'sa@proj-1.example.com',
        private_key: PEM.replace(/\n/g, '\\n'),
      },
    });
    expect(created.status).toBe(200);
    const key = ((await created.json()) as { Key: KeyRecord }).Key;
    expect(key.Config).toMatchObject({
      provider_type: 'cloud_b',
      project_id: 'proj-1',
      private_key: '[encrypted]',
    });

    const rows = await database.query('SELECT * FROM keypool.provider_keys');
    const dump = JSON.stringify(rows);
    for (const secret of secrets) {
      expect(dump).not.toContain(secret.slice(0, 12));
      expect(dump).not.toContain(secret.slice(-12));
      expect(dump).not.toContain(Buffer.from(secret).toString('base64').slice(0, 12));
    }
    expect(dump).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC');

    const snapshot = await client.getSnapshot({ ownerId: rootOwner });
    const served = snapshot.keys.find((entry) => entry.id === BigInt(key.ID));
    expect(served?.secretKey).toBe(placeholder);
    expect(served?.config?.providerType).toMatchObject({
      $case: 'cloudB',
      value: { privateKey: PEM, projectId: 'proj-1' },
    });
    expect(JSON.stringify(await (await gw.request(`/x-keys/${key.ID}`)).json())).not.toContain('MIIEvQ');
  });

  it('bumps the version and publishes gw.keys.changed without secrets; the snapshot sees a change at once', async () => {
    const { key } = await addKey();
    const before = await client.getSnapshot({ ownerId: rootOwner });
    expect((await gw.request(`/x-keys/${key.ID}`, { method: 'PUT', json: { Status: false } })).status).toBe(
      200,
    );
    // The very next snapshot read sees the change: no cache to wait out.
    const after = await client.getSnapshot({ ownerId: rootOwner });
    expect(after.version).toBeGreaterThan(before.version);
    expect(after.keys.find((entry) => entry.id === BigInt(key.ID))?.status).toBe(false);

    await waitFor(
      async () =>
        seen.some(
          (line) =>
            line.startsWith(`gw.keys.changed.${rootOwner} `) && line.includes(`"version":"${after.version}"`),
        ) && seen.some((line) => line.startsWith('gw.audit.update_key')),
      'gw.keys.changed and the audit event',
    );
    const changed = seen.filter((line) => line.startsWith(`gw.keys.changed.${rootOwner} `));
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.at(-1)).toContain(`"version":"${after.version}"`);
    expect(seen.some((line) => line.startsWith('gw.audit.add_key'))).toBe(true);
    expect(seen.some((line) => line.startsWith('gw.audit.update_key'))).toBe(true);
    const events = seen.join('\n');
    for (const secret of secrets) {
      expect(events).not.toContain(secret.slice(0, 12));
      expect(events).not.toContain(secret.slice(-12));
    }
  });

  it('encrypts and decrypts for the owner only; tampered or foreign ciphers are 400', async () => {
    const plain = 'my-upstream-secret-1234567890';
    const first = (await (await gw.request(`/x-ekey/${plain}`)).json()) as { EncryptedKey: string };
    const second = (await (await gw.request(`/x-ekey/${plain}`)).json()) as { EncryptedKey: string };
    expect(first.EncryptedKey).not.toBe(second.EncryptedKey);
    expect(first.EncryptedKey).not.toContain(plain);
    const opened = await gw.request(`/x-dkey/${first.EncryptedKey}`);
    expect(await opened.json()).toEqual({ DecryptedKey: plain });

    const raw = Buffer.from(first.EncryptedKey.slice(4), 'base64url');
    raw[raw.length - 5] = (raw[raw.length - 5] ?? 0) ^ 1;
    await expectError(await gw.request(`/x-dkey/gw1.${raw.toString('base64url')}`), 400, 'invalid_request');
    await expectError(await gw.request('/x-dkey/not-a-cipher'), 400, 'invalid_request');
    // Another owner's cipher (sealed for owner 999999 through the internal RPC).
    const foreign = await client.encryptSecret({ ownerId: 999_999n, plaintext: plain });
    await expectError(await gw.request(`/x-dkey/${foreign.ciphertext}`), 400, 'invalid_request');
  });

  it('keeps owners apart: another owner cannot see, change or delete these keys (gRPC, as a tenant owner would)', async () => {
    const { key } = await addKey();
    const other = 999_998n;
    expect((await client.listKeys({ ownerId: other, provider: '', page: 1, size: 100 })).keys).toEqual([]);
    expect((await client.getSnapshot({ ownerId: other })).keys).toEqual([]);
    await expect(client.getKey({ ownerId: other, id: BigInt(key.ID) })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(
      client.updateKey({
        ownerId: other,
        ownerIsRoot: false,
        operatorId: other,
        ipAddress: '',
        id: BigInt(key.ID),
        fields: { status: false },
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      client.deleteKey({ ownerId: other, operatorId: other, ipAddress: '', id: BigInt(key.ID) }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      client.sleepKey({ ownerId: other, keyId: BigInt(key.ID), durationMs: 0n }),
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
        client.createKey({
          ownerId: other,
          ownerIsRoot: false,
          operatorId: other,
          ipAddress: '',
          fields: { secretKey: randomSecret(), level: 1, provider },
        }),
      ).rejects.toMatchObject({ code: 'invalid_request' });
    }
    const tenantKey = await client.createKey({
      ownerId: other,
      ownerIsRoot: false,
      operatorId: other,
      ipAddress: '',
      fields: { secretKey: randomSecret(), level: 1, provider: 'https://api.example.com/v1' },
    });
    await expect(
      client.updateKey({
        ownerId: other,
        ownerIsRoot: false,
        operatorId: other,
        ipAddress: '',
        id: tenantKey.key?.id ?? 0n,
        fields: { provider: `http://127.0.0.1:${modelPort}/v1` },
      }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    expect((await client.getSnapshot({ ownerId: other })).ownerIsRoot).toBe(false);
    await client.deleteKey({ ownerId: other, operatorId: other, ipAddress: '', id: tenantKey.key?.id ?? 0n });
  });

  it('generates random API keys', async () => {
    const a = (await (await gw.request('/x-gkey')).json()) as { Key: string };
    const b = (await (await gw.request('/x-gkey')).json()) as { Key: string };
    expect(a.Key).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    expect(a.Key).not.toBe(b.Key);
  });

  it('reads sleeping keys from Redis and wakes them', async () => {
    const { key } = await addKey();
    const slept = await client.sleepKey({ ownerId: rootOwner, keyId: BigInt(key.ID), durationMs: 0n });
    expect(slept.key).toMatchObject({ keyId: BigInt(key.ID), sleepTimes: 1 });
    expect(Number(slept.key?.remainingMs)).toBe(300_000);
    const again = await client.sleepKey({ ownerId: rootOwner, keyId: BigInt(key.ID), durationMs: 0n });
    expect(Number(again.key?.remainingMs)).toBe(900_000);
    const listed = await client.listSleepingKeys({ ownerId: rootOwner });
    const entry = listed.keys.find((sleeping) => sleeping.keyId === BigInt(key.ID));
    expect(Number(entry?.remainingMs)).toBeGreaterThan(800_000);
    expect((await client.listSleepingKeys({ ownerId: 999_999n })).keys).toEqual([]);
    const woken = await client.wakeKeys({ ownerId: rootOwner, keyIds: [] });
    expect(woken.woken).toBe(1);
    expect((await client.listSleepingKeys({ ownerId: rootOwner })).keys).toEqual([]);
  });

  it('wrote no secret to any process log', () => {
    const logs = [...gw.processes.values()].map((p) => p.output()).join('\n');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      expect(logs).not.toContain(secret.slice(0, 12));
      expect(logs).not.toContain(secret.slice(-12));
    }
    expect(logs).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC');
  });

  it('stops at start with a clear error when GW_SECRET_KEY is not the key the secrets were stored with', async () => {
    for (const service of ['keypool', 'config']) {
      const variable = `${service.toUpperCase()}_ADDR`;
      const wrong = startProcess(
        `${service}-wrong-key`,
        process.execPath,
        ['--import', 'tsx', `services/${service}/src/main.ts`],
        {
          cwd: fileURLToPath(new URL('../../..', import.meta.url)),
          env: {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: process.env.HOME ?? '/tmp',
            ...gw.env,
            [variable]: `127.0.0.1:${await freePort()}`,
            GW_SECRET_KEY: randomBytes(32).toString('hex'),
          },
        },
      );
      await waitFor(() => Promise.resolve(wrong.child.exitCode !== null), `${service} exit`, 30_000, 100);
      expect(wrong.child.exitCode).toBe(1);
      expect(wrong.output()).toContain('GW_SECRET_KEY is not the key');
    }
  });

  it('refuses a non-owner key with 403 on every owner route, and no key with 401', async () => {
    const user = await createUser(gw, { name: 'keysuser1' });
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
      await expectError(await gw.request(path, { method, key: user.key, json }), 403, 'forbidden');
      await expectError(await gw.request(path, { method, key: null, json }), 401, 'unauthenticated');
    }
  });
});
