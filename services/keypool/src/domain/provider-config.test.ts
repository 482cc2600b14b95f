import { readKeyConfig, type KeyConfig } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import { checkProviderConfig } from './provider-config.js';

const PEM = '-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n';

/** A Config object as the API writes it, read into the contract's form. */
function config(raw: Record<string, unknown>): KeyConfig {
  const read = readKeyConfig(raw);
  if (!read.ok) {
    throw new Error(`${read.field}: ${read.reason}`);
  }
  return read.config;
}

const vertexAi = {
  provider_type: 'cloud_b',
  base_url: 'https://x.example.com',
  project_id: 'p',
  client_email: 'a@b.c',
  private_key: PEM,
};

describe('checkProviderConfig', () => {
  it('takes no Config as the standard type', () => {
    expect(checkProviderConfig({})).toEqual({
      ok: true,
      config: { providerType: 'standard', visible: {}, sensitive: {}, urls: [] },
    });
  });

  it('accepts anthropic, stored as its provider type alone', () => {
    expect(checkProviderConfig(config({ provider_type: 'anthropic' }))).toEqual({
      ok: true,
      config: { providerType: 'anthropic', visible: { provider_type: 'anthropic' }, sensitive: {}, urls: [] },
    });
  });

  it('accepts Azure OpenAI (cloud_a) with a mapping and api versions, stored as the Config object', () => {
    const result = checkProviderConfig(
      config({
        provider_type: 'cloud_a',
        model_mapping: { 'gpt-4*': 'dep1', '*': 'default' },
        api_versions: { chat: '2024-10-21' },
      }),
    );
    expect(result).toEqual({
      ok: true,
      config: {
        providerType: 'cloud_a',
        visible: {
          provider_type: 'cloud_a',
          model_mapping: { 'gpt-4*': 'dep1', '*': 'default' },
          api_versions: { chat: '2024-10-21' },
        },
        sensitive: {},
        urls: [],
      },
    });
  });

  it('accepts Google Vertex AI (cloud_b) and splits off the private key', () => {
    const result = checkProviderConfig(
      config({ ...vertexAi, base_url: ' https://eu.example.com/v1/projects/p/locations/l ' }),
    );
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.config.sensitive.private_key).toContain('-----BEGIN PRIVATE KEY-----\nMIIE');
      expect(result.config.visible).toEqual({
        provider_type: 'cloud_b',
        base_url: 'https://eu.example.com/v1/projects/p/locations/l',
        project_id: 'p',
        client_email: 'a@b.c',
      });
      expect(result.config.urls).toEqual([
        { field: 'Config.base_url', value: 'https://eu.example.com/v1/projects/p/locations/l' },
      ]);
    }
  });

  it.each([
    [{ provider_type: 'cloud_a', model_mapping: { 'gpt 4': 'dep' } }, 'Config.model_mapping.gpt 4'],
    [{ provider_type: 'cloud_a', model_mapping: { a: '' } }, 'Config.model_mapping.a'],
    [
      { provider_type: 'cloud_a', model_mapping: { 'a*b*c*d*e*f*g*h*i*': 'dep' } },
      'Config.model_mapping.a*b*c*d*e*f*g*h*i*',
    ],
    [{ provider_type: 'cloud_a', api_versions: { chat: '2024/10' } }, 'Config.api_versions.chat'],
    [{ ...vertexAi, base_url: undefined }, 'Config.base_url'],
    [{ ...vertexAi, project_id: undefined }, 'Config.project_id'],
    [{ ...vertexAi, client_email: 'nope' }, 'Config.client_email'],
    [{ ...vertexAi, private_key: undefined }, 'Config.private_key'],
    [{ ...vertexAi, private_key: 'not a pem' }, 'Config.private_key'],
  ])('refuses %j naming %s', (raw, field) => {
    expect(checkProviderConfig(config(raw))).toMatchObject({ ok: false, field });
  });

  it('refuses more than 1024 deployments and a pattern given twice', () => {
    const many = Array.from({ length: 1025 }, (_, i) => ({ pattern: `m${i}`, deployment: 'd' }));
    const azureOpenai = (entries: Array<{ pattern: string; deployment: string }>): KeyConfig => ({
      providerType: { $case: 'azureOpenai', value: { modelMapping: { entries } } },
    });
    expect(checkProviderConfig(azureOpenai(many))).toMatchObject({
      ok: false,
      field: 'Config.model_mapping',
    });
    const twice = [
      { pattern: 'a', deployment: 'd1' },
      { pattern: 'a', deployment: 'd2' },
    ];
    expect(checkProviderConfig(azureOpenai(twice))).toMatchObject({
      ok: false,
      field: 'Config.model_mapping.a',
    });
  });
});
