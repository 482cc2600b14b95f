import { expectError, randomSecret, waitFor } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { PEM, useKeysGateway, type KeyRecord } from './keys-fixture.js';

describe('provider keys: create, list, page, update and delete (/x-keys)', () => {
  const kp = useKeysGateway();
  const { addKey, createKey, list, secrets } = kp;

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
    await expectError(await kp.gw.request('/x-keys/999999'), 404, 'not_found');
    await expectError(await kp.gw.request('/x-keys/L12'), 400, 'invalid_request');
    await expectError(await kp.gw.request('/x-keys?level=abc'), 400, 'invalid_request');
    // The paging rule of every list: a size above 1000 is capped, page=0 and size=0 are refused.
    const capped = await kp.gw.request('/x-keys?size=5000');
    expect(capped.status).toBe(200);
    expect(capped.headers.get('x-per-page')).toBe('1000');
    await expectError(await kp.gw.request('/x-keys?page=0'), 400, 'invalid_request', 'page');
    await expectError(await kp.gw.request('/x-keys?size=0'), 400, 'invalid_request', 'size');
    await expectError(await kp.gw.request('/x-keys?id=1&id=2'), 400, 'invalid_request');
  });

  it('writes add_key and delete_key to the owner operation log, without the secret', async () => {
    const { secret, key } = await addKey({
      Name: 'logged',
      Level: 2,
      Provider: 'https://logged.example.com/',
    });
    expect((await kp.gw.request(`/x-keys/${key.ID}`, { method: 'DELETE' })).status).toBe(200);
    const entries = async (action: string) => {
      const response = await kp.gw.request(`/dashboard/logs?action=${action}&target_id=${key.ID}`);
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
    const put = await kp.gw.request(`/x-keys/${key.ID}`, {
      method: 'PUT',
      json: { Name: 'renamed', Status: false, SecretKey: newSecret },
    });
    expect(put.status).toBe(200);
    expect(((await put.json()) as { Key: KeyRecord }).Key).toMatchObject({
      Name: 'renamed',
      Status: false,
      SecretKey: `********${newSecret.slice(-4)}`,
    });
    const post = await kp.gw.request(`/x-keys/${key.ID}`, {
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
    // GET shows the stored Config whole, as keypool answers it typed.
    expect((await list(`/x-keys/${key.ID}`)).keys[0]?.Config).toEqual({
      provider_type: 'cloud_a',
      model_mapping: { '*': 'dep-default', 'gpt-4*': 'dep4' },
      api_versions: { chat: '2024-10-21' },
    });
    await expectError(
      await kp.gw.request('/x-keys/999999', { method: 'PUT', json: { Name: 'x' } }),
      404,
      'not_found',
    );
    await expectError(
      await kp.gw.request(`/x-keys/${key.ID}`, { method: 'PUT', json: {} }),
      400,
      'invalid_request',
    );
    await expectError(
      await kp.gw.request(`/x-keys/${key.ID}`, { method: 'PUT', json: { Balance: 5 } }),
      400,
      'invalid_request',
    );

    const deleted = await kp.gw.request(`/x-keys/${key.ID}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    await expectError(await kp.gw.request(`/x-keys/${key.ID}`), 404, 'not_found');
    await expectError(await kp.gw.request(`/x-keys/${key.ID}`, { method: 'DELETE' }), 404, 'not_found');
  });

  it('validates every field and changes nothing on a refusal', async () => {
    const before = (
      await kp.database.query<{ n: string }>('SELECT count(*) AS n FROM keypool.provider_keys')
    )[0]?.n;
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
    const after = (
      await kp.database.query<{ n: string }>('SELECT count(*) AS n FROM keypool.provider_keys')
    )[0]?.n;
    expect(after).toBe(before);
  });
});
