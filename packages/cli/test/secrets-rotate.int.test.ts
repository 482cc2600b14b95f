import { randomBytes } from 'node:crypto';
import { createGrpcClient, createSecretBox, keyCheckOpens, type SecretBox } from '@gw/kit';
import { config as configPb, keypool } from '@gw/proto';
import { createTestDatabase, startGateway, type Gateway, type TestDatabase } from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGw } from './gw.js';

const PROVIDER_SECRET = `sk-upstream-${randomBytes(16).toString('hex')}`;
const VERTEX_AI_SECRET = `cb-${randomBytes(24).toString('hex')}`;
const PEM_BODY = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7';
const PEM = `-----BEGIN PRIVATE KEY-----\\n${PEM_BODY}\\n-----END PRIVATE KEY-----\\n`;
const EMAIL_PASS = `smtp-${randomBytes(12).toString('hex')}`;

interface SealedKeyRow {
  owner_id: string;
  secret_enc: string;
  config_secrets_enc: string;
}

describe('gw secrets rotate-key', () => {
  let db: TestDatabase;
  let gw: Gateway;
  let rootId: bigint;
  const oldKey = randomBytes(32).toString('hex');
  const newKey = randomBytes(32).toString('hex');
  const rotate = (secretKey: string) =>
    runGw(['secrets', 'rotate-key'], {
      DATABASE_URL: db.url,
      GW_SECRET_KEY: secretKey,
      GW_NEW_SECRET_KEY: newKey,
      KEYPOOL_ADDR: gw.env.KEYPOOL_ADDR ?? '',
      CONFIG_ADDR: gw.env.CONFIG_ADDR ?? '',
    });
  const sealedKeys = () =>
    db.query<SealedKeyRow>('SELECT owner_id, secret_enc, config_secrets_enc FROM keypool.provider_keys');
  const sealedPasses = () =>
    db.query<{ owner_id: string; value: string }>(
      "SELECT owner_id, value FROM config.owner_configs WHERE key = 'EMAIL_PASS'",
    );

  function opensAll(box: SecretBox, keys: SealedKeyRow[]): string[] {
    return keys.flatMap((row) => [
      box.open(row.secret_enc, `keypool:secret:${row.owner_id}`) ?? '(does not open)',
      ...(row.config_secrets_enc === ''
        ? []
        : [box.open(row.config_secrets_enc, `keypool:config:${row.owner_id}`) ?? '(does not open)']),
    ]);
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    gw = await startGateway({ databaseUrl: db.url, env: { GW_SECRET_KEY: oldKey } });
    rootId = BigInt(((await (await gw.request('/dashboard/status')).json()) as { id: number }).id);
    const created = await Promise.all([
      gw.request('/x-keys', {
        method: 'POST',
        json: { SecretKey: PROVIDER_SECRET, Level: 1, Provider: 'https://api.example.com' },
      }),
      gw.request('/x-keys', {
        method: 'POST',
        json: {
          SecretKey: VERTEX_AI_SECRET,
          Level: 2,
          Provider: 'https://b.example.com',
          config: {
            provider_type: 'cloud_b',
            base_url: 'https://eu.b.example.com/v1/projects/p/locations/l',
            project_id: 'proj-1',
            client_email: 'sa@proj-1.example.com',
            private_key: PEM,
          },
        },
      }),
      gw.request('/x-config', { method: 'PUT', json: { EMAIL_PASS } }),
    ]);
    expect(created.map((response) => response.status)).toEqual([200, 200, 200]);
  });

  afterAll(async () => {
    await gw.stop();
    await db.drop();
  });

  it('refuses while keypool runs (it holds the old key), changing nothing', async () => {
    const before = await sealedKeys();
    const { code, output } = await rotate(oldKey);
    expect(code).not.toBe(0);
    expect(output).toContain('keypool is running');
    expect(await sealedKeys()).toEqual(before);
  });

  it('refuses a GW_SECRET_KEY that did not seal the secrets, changing nothing', async () => {
    await gw.processes.get('keypool')?.stop();
    await gw.processes.get('config')?.stop();
    const before = await sealedKeys();
    const { code, output } = await rotate(randomBytes(32).toString('hex'));
    expect(code).not.toBe(0);
    expect(output).toContain('GW_SECRET_KEY is not the key');
    expect(await sealedKeys()).toEqual(before);
  });

  it('re-encrypts every stored cipher and the key checks with the new key', async () => {
    const { code, output } = await rotate(oldKey);
    expect(code, output).toBe(0);
    expect(output).toContain('keypool: 2 row(s) re-encrypted');
    expect(output).toContain('config: 1 row(s) re-encrypted');

    const oldBox = createSecretBox(oldKey);
    const newBox = createSecretBox(newKey);
    const keys = await sealedKeys();
    const opened = opensAll(newBox, keys);
    expect(opened).toHaveLength(3);
    expect(opened).toEqual(expect.arrayContaining([PROVIDER_SECRET, VERTEX_AI_SECRET]));
    expect(opened.filter((plain) => plain.includes(PEM_BODY))).toHaveLength(1);
    expect(opensAll(oldBox, keys).every((plain) => plain === '(does not open)')).toBe(true);
    const passes = await sealedPasses();
    expect(passes.map((row) => newBox.open(row.value, `config:email_pass:${row.owner_id}`))).toEqual([
      EMAIL_PASS,
    ]);
    for (const schema of ['keypool', 'config']) {
      const [check] = await db.query<{ cipher: string }>(`SELECT cipher FROM ${schema}.key_check`);
      expect(keyCheckOpens(newBox, check?.cipher ?? '', schema), schema).toBe(true);
    }
  });

  it('changes nothing when run again', async () => {
    const before = await sealedKeys();
    const { code, output } = await rotate(oldKey);
    expect(code, output).toBe(0);
    expect(output).toContain('keypool: already encrypted with the new key');
    expect(output).toContain('config: already encrypted with the new key');
    expect(await sealedKeys()).toEqual(before);
  });

  it('leaves keypool and config serving the same plaintext once started with the new key', async () => {
    await gw.restartService('keypool', { GW_SECRET_KEY: newKey });
    await gw.restartService('config', { GW_SECRET_KEY: newKey });
    const token = gw.env.GW_INTERNAL_TOKEN ?? '';
    const pool = createGrpcClient(keypool.KeypoolServiceClient, gw.env.KEYPOOL_ADDR ?? '', token);
    const configs = createGrpcClient(configPb.ConfigServiceClient, gw.env.CONFIG_ADDR ?? '', token);
    try {
      const snapshot = await pool.getSnapshot({ ownerId: rootId });
      expect(snapshot.keys.map((key) => key.secretKey).sort()).toEqual(
        [VERTEX_AI_SECRET, PROVIDER_SECRET].sort(),
      );
      const privateKeys = snapshot.keys.map((key) =>
        key.config?.providerType?.$case === 'vertexAi' ? key.config.providerType.value.privateKey : '',
      );
      expect(privateKeys.join()).toContain(PEM_BODY);
      const owner = await configs.getOwnerConfig({ ownerId: rootId, revealSecrets: true });
      expect(owner.values.EMAIL_PASS).toBe(EMAIL_PASS);
    } finally {
      pool.close();
      configs.close();
    }
  });
});
