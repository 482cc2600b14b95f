import { describe, expect, it } from 'vitest';
import { keyConfigObject, readKeyConfig } from './key-config.js';

const PEM = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n';

describe('readKeyConfig', () => {
  it('reads no Config, {} and provider_type standard as the standard type', () => {
    for (const raw of [undefined, null, {}, { provider_type: 'standard' }]) {
      expect(readKeyConfig(raw)).toEqual({ ok: true, config: {} });
    }
  });

  it('reads Azure OpenAI (cloud_a), keeping the order of model_mapping and leaving absent parts unset', () => {
    expect(
      readKeyConfig({
        provider_type: 'cloud_a',
        model_mapping: { 'gpt-4*': 'dep4', '*': 'default' },
        api_versions: { images: '', chat: '2024-10-21' },
      }),
    ).toEqual({
      ok: true,
      config: {
        providerType: {
          $case: 'azureOpenai',
          value: {
            modelMapping: {
              entries: [
                { pattern: 'gpt-4*', deployment: 'dep4' },
                { pattern: '*', deployment: 'default' },
              ],
            },
            apiVersions: { images: '', chat: '2024-10-21' },
          },
        },
      },
    });
    expect(readKeyConfig({ provider_type: 'cloud_a' })).toEqual({
      ok: true,
      config: { providerType: { $case: 'azureOpenai', value: {} } },
    });
  });

  it('reads Google Vertex AI (cloud_b), a missing field as empty (the keypool says it is required)', () => {
    expect(readKeyConfig({ provider_type: 'cloud_b', base_url: 'https://b.example.com' })).toEqual({
      ok: true,
      config: {
        providerType: {
          $case: 'vertexAi',
          value: { baseUrl: 'https://b.example.com', projectId: '', clientEmail: '', privateKey: '' },
        },
      },
    });
  });

  it('reads anthropic, which has no other field', () => {
    expect(readKeyConfig({ provider_type: 'anthropic' })).toEqual({
      ok: true,
      config: { providerType: { $case: 'anthropic', value: {} } },
    });
  });

  it.each([
    [[1, 2], 'Config'],
    [{ provider_type: 'anthropic', base_url: 'https://a.example.com' }, 'Config.base_url'],
    ['cloud_a', 'Config'],
    [{ provider_type: 'cloud_z' }, 'Config.provider_type'],
    [{ provider_type: 7 }, 'Config.provider_type'],
    [{ provider_type: 'standard', model_mapping: {} }, 'Config.model_mapping'],
    [{ provider_type: 'cloud_a', model_mapping: 'x' }, 'Config.model_mapping'],
    [{ provider_type: 'cloud_a', model_mapping: { a: 5 } }, 'Config.model_mapping.a'],
    [{ provider_type: 'cloud_a', api_versions: [] }, 'Config.api_versions'],
    [{ provider_type: 'cloud_a', api_versions: { video: '1' } }, 'Config.api_versions.video'],
    [{ provider_type: 'cloud_a', api_versions: { chat: 1 } }, 'Config.api_versions.chat'],
    [{ provider_type: 'cloud_a', deployment: 'x' }, 'Config.deployment'],
    [{ provider_type: 'cloud_b', model_mapping: {} }, 'Config.model_mapping'],
    [{ provider_type: 'cloud_b', private_key: { pem: PEM } }, 'Config.private_key'],
  ])('refuses %j naming %s', (raw, field) => {
    expect(readKeyConfig(raw)).toMatchObject({ ok: false, field });
  });
});

describe('keyConfigObject', () => {
  it.each([
    {},
    { provider_type: 'anthropic' },
    { provider_type: 'cloud_a' },
    { provider_type: 'cloud_a', model_mapping: {} },
    {
      provider_type: 'cloud_a',
      model_mapping: { 'gpt-4*': 'dep4', '*': 'default' },
      api_versions: { chat: '2024-10-21', images: '' },
    },
    {
      provider_type: 'cloud_b',
      base_url: 'https://b.example.com',
      project_id: 'p',
      client_email: 'a@b.example.com',
      private_key: PEM,
    },
  ])('gives back the Config object it was read from: %j', (raw) => {
    const read = readKeyConfig(raw);
    expect(read.ok && keyConfigObject(read.config)).toEqual(raw);
  });
});
