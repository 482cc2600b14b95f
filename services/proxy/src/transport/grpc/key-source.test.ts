import { keypool } from '@gw/proto';
import { describe, expect, it } from 'vitest';
import { keyConfigOf } from './key-source.js';

/** A snapshot key as it arrives over the wire. */
const received = (key: Partial<keypool.ProviderKey>) =>
  keypool.ProviderKey.decode(keypool.ProviderKey.encode(keypool.ProviderKey.fromPartial(key)).finish());

const PEM = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n';

describe('keyConfigOf', () => {
  it('reads the typed config as the Config object the pool keeps', () => {
    const key = received({
      config: {
        providerType: {
          $case: 'vertexAi',
          value: { baseUrl: 'https://b.example.com', projectId: 'p', clientEmail: 'a@b.c', privateKey: PEM },
        },
      },
    });
    expect(keyConfigOf(key)).toEqual({
      provider_type: 'cloud_b',
      base_url: 'https://b.example.com',
      project_id: 'p',
      client_email: 'a@b.c',
      private_key: PEM,
    });
  });

  it('reads the JSON of a keypool that predates config', () => {
    const json = { provider_type: 'cloud_a', model_mapping: { '*': 'dep' }, api_versions: { chat: 'v1' } };
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    const key = received({ configJson: JSON.stringify(json) });
    expect(key.config).toBeUndefined();
    expect(keyConfigOf(key)).toEqual(json);
  });
});
