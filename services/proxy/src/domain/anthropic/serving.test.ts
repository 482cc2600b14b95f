import { findAiEndpoint } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import type { ProviderType } from '@gw/kit';
import { poolKey } from '../pool.js';
import { servingOf } from './serving.js';

const key = (type: ProviderType) =>
  poolKey({ id: '1', level: 1, provider: 'https://up.example', secret: 's', active: true, type, config: {} });
const endpoint = (path: string) => {
  const found = findAiEndpoint('POST', path);
  if (!found) {
    throw new Error(path);
  }
  return found;
};

describe('servingOf', () => {
  it('serves the Messages API as it is on anthropic keys only', () => {
    expect(servingOf(endpoint('/v1/messages'), key('anthropic'))).toEqual({
      kind: 'as_is',
      path: '/v1/messages',
    });
    expect(servingOf(endpoint('/v1/messages/count_tokens'), key('anthropic'))).toEqual({
      kind: 'as_is',
      path: '/v1/messages/count_tokens',
    });
    expect(servingOf(endpoint('/v1/messages'), key('standard'))).toEqual({
      kind: 'unservable',
      reason: '/v1/messages is served only by keys of provider type anthropic',
    });
  });

  it('translates chat/completions on an anthropic key and serves no other OpenAI-style endpoint there', () => {
    expect(servingOf(endpoint('/v1/chat/completions'), key('anthropic'))).toEqual({
      kind: 'translated',
      path: '/v1/messages',
    });
    expect(servingOf(endpoint('/v1/embeddings'), key('anthropic'))).toMatchObject({ kind: 'unservable' });
    expect(servingOf(endpoint('/v1/chat/completions'), key('standard'))).toEqual({
      kind: 'as_is',
      path: '/v1/chat/completions',
    });
  });
});
