import { AppError, keyConfigObject } from '@gw/kit';
import type { keypool } from '@gw/proto';
import { keyTestEnv, randomSecret, startService, type StartedService } from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PEM =
  '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n';

/** A key's Config as each field of the answer carries it. */
function configOf(key: keypool.ProviderKey | undefined): Record<string, unknown> {
  expect(key?.config).toBeDefined();
  const typed = keyConfigObject(key?.config ?? {});
  // The deprecated JSON is filled too, for readers that predate config, and agrees.
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  expect(JSON.parse(key?.configJson ?? '')).toEqual(typed);
  return typed;
}

describe('ProviderKey.config and KeyFields.config (typed, beside the deprecated JSON)', () => {
  let service: StartedService<'keypool'>;
  // Keypool keys a pool by its owner's id alone and never asks accounts about it.
  const ownerId = 1n;

  const create = (fields: Omit<keypool.KeyFields, 'provider' | 'level'>) =>
    service.client.createKey({
      ownerId,
      ownerIsRoot: true,
      operatorId: ownerId,
      ipAddress: '127.0.0.1',
      fields: { provider: 'https://typed.example.com/v1', level: 2, secretKey: randomSecret(), ...fields },
    });
  const update = (id: bigint, fields: keypool.KeyFields) =>
    service.client.updateKey({
      ownerId,
      ownerIsRoot: true,
      operatorId: ownerId,
      ipAddress: '127.0.0.1',
      id,
      fields,
    });
  const snapshotKey = async (id: bigint) =>
    (await service.client.getSnapshot({ ownerId })).keys.find((key) => key.id === id);
  const refusal = async (answer: Promise<unknown>) => {
    const error = await answer.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  };

  beforeAll(async () => {
    // Keypool dials config for each pool's automatic settings.
    service = await startService('keypool', { with: ['config'], env: keyTestEnv() });
  });

  afterAll(async () => {
    await (service as StartedService<'keypool'> | undefined)?.stop();
  });

  it('stores a typed Azure OpenAI (cloud_a) Config and answers it typed from every RPC', async () => {
    const expected = {
      provider_type: 'cloud_a',
      model_mapping: { 'gpt-4o*': 'dep-4o', '*': 'dep-default' },
      api_versions: { chat: '2024-10-21', images: '' },
    };
    const created = await create({
      config: {
        providerType: {
          $case: 'azureOpenai',
          value: {
            modelMapping: {
              entries: [
                { pattern: 'gpt-4o*', deployment: 'dep-4o' },
                { pattern: '*', deployment: 'dep-default' },
              ],
            },
            apiVersions: { chat: '2024-10-21', images: '' },
          },
        },
      },
    });
    const id = created.key?.id ?? 0n;
    expect(configOf(created.key)).toEqual(expected);
    expect(configOf((await service.client.getKey({ ownerId, id })).key)).toEqual(expected);
    expect(configOf(await snapshotKey(id))).toEqual(expected);
  });

  it('serves a Vertex AI (cloud_b) private_key in plaintext to the snapshot only', async () => {
    const vertexAi = {
      baseUrl: 'https://eu.typed.example.com/v1/projects/p/locations/l',
      projectId: 'proj-typed',
      clientEmail: 'sa@proj-typed.example.com',
    };
    const created = await create({
      secretKey: `cb-${randomSecret(48)}`.slice(0, 51),
      config: { providerType: { $case: 'vertexAi', value: { ...vertexAi, privateKey: PEM } } },
    });
    const id = created.key?.id ?? 0n;
    const shown = {
      provider_type: 'cloud_b',
      base_url: vertexAi.baseUrl,
      project_id: vertexAi.projectId,
      client_email: vertexAi.clientEmail,
    };
    expect(configOf(created.key)).toEqual({ ...shown, private_key: '[encrypted]' });
    expect(configOf((await service.client.getKey({ ownerId, id })).key)).toEqual({
      ...shown,
      private_key: '[encrypted]',
    });
    expect(configOf(await snapshotKey(id))).toEqual({ ...shown, private_key: PEM });
  });

  it('keeps the Config when the field is unset; an empty KeyConfig is the standard type', async () => {
    const created = await create({
      config: { providerType: { $case: 'azureOpenai', value: { apiVersions: { chat: 'v1' } } } },
    });
    const id = created.key?.id ?? 0n;
    const kept = { provider_type: 'cloud_a', api_versions: { chat: 'v1' } };
    expect(configOf((await update(id, { name: 'renamed' })).key)).toEqual(kept);
    expect(configOf((await update(id, { config: {} })).key)).toEqual({});
  });

  it('understands an edge that predates config: the JSON alone, refused with the same field names', async () => {
    const created = await create({
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      configJson: JSON.stringify({ provider_type: 'cloud_a', model_mapping: { '*': 'dep-json' } }),
    });
    expect(configOf(created.key)).toEqual({ provider_type: 'cloud_a', model_mapping: { '*': 'dep-json' } });
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    expect(configOf((await create({ configJson: '' })).key)).toEqual({});

    const cases: Array<[string, string]> = [
      ['not json', 'Config'],
      ['{"provider_type":"cloud_z"}', 'Config.provider_type'],
      ['{"provider_type":"cloud_a","api_versions":{"video":"v1"}}', 'Config.api_versions.video'],
      ['{"provider_type":"cloud_a","model_mapping":{"a b":"dep"}}', 'Config.model_mapping.a b'],
    ];
    for (const [configJson, field] of cases) {
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      const error = await refusal(create({ configJson }));
      expect(error.code).toBe('invalid_request');
      expect(error.message).toContain(field);
    }
  });
});
