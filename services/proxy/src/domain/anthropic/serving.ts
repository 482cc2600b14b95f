import type { AiEndpoint } from '@gw/kit';
import { ProviderType } from '@gw/kit';
import type { PoolKey } from '../pool.js';

/**
 * How a key serves a call to an endpoint: as it is (its own API), translated (chat/completions on
 * an `anthropic` key, as a Messages call), or not at all (the next key is tried; when none can,
 * the call is refused with the reason).
 */
export type Serving =
  | { kind: 'as_is'; path: string }
  | { kind: 'translated'; path: string }
  | { kind: 'unservable'; reason: string };

const MESSAGES_PATH = '/v1/messages';

export function servingOf(endpoint: AiEndpoint, key: PoolKey): Serving {
  const anthropicKey = key.type === ProviderType.Anthropic;
  if (endpoint.dialect === 'anthropic') {
    return anthropicKey
      ? { kind: 'as_is', path: endpoint.path }
      : { kind: 'unservable', reason: `${endpoint.path} is served only by keys of provider type anthropic` };
  }
  if (!anthropicKey) {
    return { kind: 'as_is', path: endpoint.path };
  }
  return endpoint.path === '/v1/chat/completions'
    ? { kind: 'translated', path: MESSAGES_PATH }
    : { kind: 'unservable', reason: `${endpoint.path} is not served by keys of provider type anthropic` };
}
