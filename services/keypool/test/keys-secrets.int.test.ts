import { expectError, freePort, randomSecret, startProcess, waitFor } from '@gw/testkit';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PEM, useKeysGateway, type KeyRecord } from './keys-fixture.js';

describe('provider keys: secrets stored sealed, events, logs (/x-ekey, /x-dkey, /x-gkey)', () => {
  const kp = useKeysGateway();
  const { addKey, createKey, secrets, seen } = kp;

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

    const rows = await kp.database.query('SELECT * FROM keypool.provider_keys');
    const dump = JSON.stringify(rows);
    for (const secret of secrets) {
      expect(dump).not.toContain(secret.slice(0, 12));
      expect(dump).not.toContain(secret.slice(-12));
      expect(dump).not.toContain(Buffer.from(secret).toString('base64').slice(0, 12));
    }
    expect(dump).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC');

    const snapshot = await kp.client.getSnapshot({ ownerId: kp.rootOwner });
    const served = snapshot.keys.find((entry) => entry.id === BigInt(key.ID));
    expect(served?.secretKey).toBe(placeholder);
    expect(served?.config?.providerType).toMatchObject({
      $case: 'vertexAi',
      value: { privateKey: PEM, projectId: 'proj-1' },
    });
    expect(JSON.stringify(await (await kp.gw.request(`/x-keys/${key.ID}`)).json())).not.toContain('MIIEvQ');
  });

  it('bumps the version and publishes gw.keys.changed without secrets; the snapshot sees a change at once', async () => {
    const { key } = await addKey();
    const before = await kp.client.getSnapshot({ ownerId: kp.rootOwner });
    expect(
      (await kp.gw.request(`/x-keys/${key.ID}`, { method: 'PUT', json: { Status: false } })).status,
    ).toBe(200);
    // The very next snapshot read sees the change: no cache to wait out.
    const after = await kp.client.getSnapshot({ ownerId: kp.rootOwner });
    expect(after.version).toBeGreaterThan(before.version);
    expect(after.keys.find((entry) => entry.id === BigInt(key.ID))?.status).toBe(false);

    await waitFor(
      async () =>
        seen.some(
          (line) =>
            line.startsWith(`gw.keys.changed.${kp.rootOwner} `) &&
            line.includes(`"version":"${after.version}"`),
        ) && seen.some((line) => line.startsWith('gw.audit.update_key')),
      'gw.keys.changed and the audit event',
    );
    const changed = seen.filter((line) => line.startsWith(`gw.keys.changed.${kp.rootOwner} `));
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
    const first = (await (await kp.gw.request(`/x-ekey/${plain}`)).json()) as { EncryptedKey: string };
    const second = (await (await kp.gw.request(`/x-ekey/${plain}`)).json()) as { EncryptedKey: string };
    expect(first.EncryptedKey).not.toBe(second.EncryptedKey);
    expect(first.EncryptedKey).not.toContain(plain);
    const opened = await kp.gw.request(`/x-dkey/${first.EncryptedKey}`);
    expect(await opened.json()).toEqual({ DecryptedKey: plain });

    const raw = Buffer.from(first.EncryptedKey.slice(4), 'base64url');
    raw[raw.length - 5] = (raw[raw.length - 5] ?? 0) ^ 1;
    await expectError(
      await kp.gw.request(`/x-dkey/gw1.${raw.toString('base64url')}`),
      400,
      'invalid_request',
    );
    await expectError(await kp.gw.request('/x-dkey/not-a-cipher'), 400, 'invalid_request');
    // Another owner's cipher (sealed for owner 999999 through the internal RPC).
    const foreign = await kp.client.encryptSecret({ ownerId: 999_999n, plaintext: plain });
    await expectError(await kp.gw.request(`/x-dkey/${foreign.ciphertext}`), 400, 'invalid_request');
  });

  it('generates random API keys', async () => {
    const a = (await (await kp.gw.request('/x-gkey')).json()) as { Key: string };
    const b = (await (await kp.gw.request('/x-gkey')).json()) as { Key: string };
    expect(a.Key).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    expect(a.Key).not.toBe(b.Key);
  });

  it('wrote no secret to any process log', () => {
    const logs = [...kp.gw.processes.values()].map((p) => p.output()).join('\n');
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
            ...kp.gw.env,
            [variable]: `127.0.0.1:${await freePort()}`,
            GW_SECRET_KEY: randomBytes(32).toString('hex'),
          },
        },
      );
      await waitFor(() => Promise.resolve(wrong.child.exitCode !== null), `${service} exit`, 30_000, 100);
      expect(wrong.child.exitCode).toBe(1);
      // Written as it exits: the pipe may still hold it when the exit is seen.
      await waitFor(
        () => Promise.resolve(wrong.output().includes('GW_SECRET_KEY is not the key')),
        `${service} saying why`,
      );
    }
  });
});
