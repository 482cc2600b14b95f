import { describe, expect, it } from 'vitest';
import { parseProviderConfig } from './provider-config.js';

const PEM = '-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n';

describe('provider Config', () => {
  it('defaults to standard', () => {
    expect(parseProviderConfig(undefined)).toMatchObject({ ok: true, config: { providerType: 'standard' } });
    expect(parseProviderConfig({})).toMatchObject({ ok: true, config: { providerType: 'standard' } });
    expect(parseProviderConfig({ provider_type: 'standard' })).toMatchObject({ ok: true });
  });

  it('accepts cloud_a with a mapping and api versions', () => {
    const result = parseProviderConfig({
      provider_type: 'cloud_a',
      model_mapping: { 'gpt-4*': 'dep1', '*': 'default' },
      api_versions: { chat: '2024-10-21' },
    });
    expect(result).toMatchObject({
      ok: true,
      config: { providerType: 'cloud_a', visible: { model_mapping: { '*': 'default' } } },
    });
  });

  it('accepts cloud_b and splits off the private key', () => {
    const result = parseProviderConfig({
      provider_type: 'cloud_b',
      base_url: 'https://eu.example.com/v1/projects/p/locations/l',
      project_id: 'p-1',
      client_email: 'sa@p.iam.example.com',
      private_key: PEM,
    });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.config.sensitive.private_key).toContain('-----BEGIN PRIVATE KEY-----\nMIIE');
      expect(JSON.stringify(result.config.visible)).not.toContain('MIIE');
      expect(result.config.urls).toEqual([
        { field: 'Config.base_url', value: 'https://eu.example.com/v1/projects/p/locations/l' },
      ]);
    }
  });

  it.each([
    [[1, 2], 'Config'],
    ['cloud_a', 'Config'],
    [{ provider_type: 'cloud_z' }, 'Config.provider_type'],
    [{ provider_type: 7 }, 'Config.provider_type'],
    [{ provider_type: 'standard', model_mapping: {} }, 'Config.model_mapping'],
    [{ provider_type: 'cloud_a', model_mapping: 'x' }, 'Config.model_mapping'],
    [{ provider_type: 'cloud_a', model_mapping: { a: 5 } }, 'Config.model_mapping.a'],
    [{ provider_type: 'cloud_a', api_versions: { video: '1' } }, 'Config.api_versions.video'],
    [{ provider_type: 'cloud_a', deployment: 'x' }, 'Config.deployment'],
    [
      { provider_type: 'cloud_b', project_id: 'p', client_email: 'a@b.c', private_key: PEM },
      'Config.base_url',
    ],
    [
      {
        provider_type: 'cloud_b',
        base_url: 'https://x.example.com',
        client_email: 'a@b.c',
        private_key: PEM,
      },
      'Config.project_id',
    ],
    [
      {
        provider_type: 'cloud_b',
        base_url: 'https://x.example.com',
        project_id: 'p',
        client_email: 'nope',
        private_key: PEM,
      },
      'Config.client_email',
    ],
    [
      {
        provider_type: 'cloud_b',
        base_url: 'https://x.example.com',
        project_id: 'p',
        client_email: 'a@b.c',
        private_key: 'not a pem',
      },
      'Config.private_key',
    ],
  ])('refuses %j naming %s', (config, field) => {
    expect(parseProviderConfig(config)).toMatchObject({ ok: false, field });
  });
});
