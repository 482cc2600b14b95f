import { config } from '@gw/proto';
import { describe, expect, it } from 'vitest';
import { configsOf } from './render.js';

/** A config answer as it arrives over the wire. */
const received = (answer: Partial<config.GetOwnerConfigResponse>) =>
  config.GetOwnerConfigResponse.decode(
    config.GetOwnerConfigResponse.encode(config.GetOwnerConfigResponse.fromPartial(answer)).finish(),
  );

describe('configsOf', () => {
  it('renders the typed view', () => {
    const configs = configsOf(
      received({
        configs: config.ConfigView.fromPartial({
          modelMapper: [{ pattern: 'gpt-4*', model: 'gpt-4o' }],
          resources: ['/v1/models'],
          pricing: '{"ChatPricing":{}}',
        }),
      }),
    );
    expect(configs).toMatchObject({
      MODEL_MAPPER: { 'gpt-4*': 'gpt-4o' },
      RESOURCES: { '/v1/models': true },
      MODEL_LIMITS: {},
      PRICING: '{"ChatPricing":{}}',
    });
  });

  it('reads the JSON of a config service that predates configs', () => {
    const json = { MODEL_MAPPER: { a: 'b' }, MODEL_LIMITS: { a: { rpm: 1 } }, PRICING: '' };
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    const answer = received({ configsJson: JSON.stringify(json) });
    expect(answer.configs).toBeUndefined();
    expect(configsOf(answer)).toEqual(json);
  });
});
