import { keypool } from '@gw/proto';
import { describe, expect, it } from 'vitest';
import { keyRecord } from './render.js';

/** A ProviderKey as it arrives over the wire. */
const received = (key: Partial<keypool.ProviderKey>) =>
  keypool.ProviderKey.decode(keypool.ProviderKey.encode(keypool.ProviderKey.fromPartial(key)).finish());

describe('keyRecord Config', () => {
  it('renders the typed config as the Config object', () => {
    const key = received({
      config: {
        providerType: {
          $case: 'azureOpenai',
          value: { modelMapping: { entries: [{ pattern: '*', deployment: 'dep' }] } },
        },
      },
    });
    expect(keyRecord(key).Config).toEqual({ provider_type: 'cloud_a', model_mapping: { '*': 'dep' } });
    expect(keyRecord(received({ config: {} })).Config).toEqual({});
  });

  it('reads the JSON of a keypool that predates config', () => {
    const json = { provider_type: 'cloud_b', base_url: 'https://b.example.com', private_key: '[encrypted]' };
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    const key = received({ configJson: JSON.stringify(json) });
    expect(key.config).toBeUndefined();
    expect(keyRecord(key).Config).toEqual(json);
  });
});
