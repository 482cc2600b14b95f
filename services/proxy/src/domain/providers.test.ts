import { describe, expect, it } from 'vitest';
import { poolKey, type PoolKey } from './pool.js';
import {
  DEFAULT_ANTHROPIC_VERSION,
  forwardableRequestHeaders,
  mergeHeaders,
  forwardableResponseHeaders,
  standardTarget,
  upstreamTarget,
} from './providers.js';

const key = (provider: string): PoolKey =>
  poolKey({ id: '1', level: 1, provider, secret: 'sk-up', active: true, type: 'standard', config: {} });

describe('standardTarget', () => {
  it('joins the Provider base URL and the path without doubling /v1', () => {
    expect(standardTarget(key('https://api.example.com'), '/v1/chat/completions', '').url.href).toBe(
      'https://api.example.com/v1/chat/completions',
    );
    expect(standardTarget(key('https://api.example.com/v1/'), '/v1/chat/completions', '?a=1').url.href).toBe(
      'https://api.example.com/v1/chat/completions?a=1',
    );
    expect(standardTarget(key('https://gw.example.com/openai'), '/v1/models', '').url.href).toBe(
      'https://gw.example.com/openai/v1/models',
    );
  });

  it('sends the key as a Bearer token', () => {
    expect(standardTarget(key('https://a.example'), '/v1/x', '').headers).toEqual({
      authorization: 'Bearer sk-up',
    });
  });
});

describe('forwardableRequestHeaders', () => {
  it('passes only the allowlist: never credentials, organisation, cookies, internal or hop-by-hop headers', () => {
    const out = forwardableRequestHeaders({
      authorization: 'Bearer client',
      'x-api-key': 'client-key',
      'api-key': 'client-key',
      cookie: 'session=1',
      'openai-organization': 'org-x',
      'OpenAI-Project': 'proj-x',
      'x-gw-account': 'x',
      'x-gw-internal-token': 't',
      connection: 'keep-alive, x-custom',
      'x-custom': 'named in Connection',
      'keep-alive': 'timeout=5',
      te: 'trailers',
      'content-length': '10',
      'content-type': 'application/json',
      'x-forwarded-for': '10.0.0.1',
      accept: 'application/json',
      'user-agent': 'OpenAI/JS 5',
      'x-stainless-lang': 'js',
      'openai-beta': 'realtime=v1',
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'prompt-caching-2024-07-31',
    });
    expect(out).toEqual({
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'prompt-caching-2024-07-31',
      accept: 'application/json',
      'user-agent': 'OpenAI/JS 5',
      'x-stainless-lang': 'js',
      'openai-beta': 'realtime=v1',
      'accept-encoding': 'identity',
    });
  });
});

describe('mergeHeaders', () => {
  it('copies every set into a new object, a later set winning a name both have', () => {
    const client = { accept: '*/*', authorization: 'Bearer the-clients' };
    const pool = { authorization: 'Bearer the-pools' };
    const merged = mergeHeaders(client, pool, { 'content-type': 'application/json' });
    expect(merged).toEqual({
      accept: '*/*',
      authorization: 'Bearer the-pools',
      'content-type': 'application/json',
    });
    expect(merged).not.toBe(client);
    expect(client.authorization).toBe('Bearer the-clients');
  });
});

describe('forwardableResponseHeaders', () => {
  it("passes the answer's description, never what belongs to the owner's key", () => {
    expect(
      forwardableResponseHeaders({
        'content-type': 'text/event-stream',
        'openai-processing-ms': '12',
        'x-request-id': 'req_1',
        'openai-organization': 'org-owner',
        'openai-project': 'proj-owner',
        'set-cookie': ['a=1'],
        'x-ratelimit-remaining-requests': '99',
        'content-encoding': 'gzip',
        connection: 'keep-alive',
      }),
    ).toEqual({ 'content-type': 'text/event-stream', 'openai-processing-ms': '12', 'x-request-id': 'req_1' });
  });
});

describe('Azure OpenAI (cloud_a) targets', () => {
  const defaults = {
    azureOpenAiApiVersions: { chat: 'c', embeddings: 'e', audio: 'a', images: 'i', responses: 'r' },
  };
  const azureOpenai = (config: Record<string, unknown>): PoolKey =>
    poolKey({
      ...key('https://res.example.com/'),
      type: 'cloud_a',
      config: { provider_type: 'cloud_a', ...config },
    });

  it('picks the most specific deployment, the key api-version or the default, and the api-key header', () => {
    const k = azureOpenai({
      model_mapping: { 'gpt-4*': 'dep4', 'gpt-4o': 'dep4o', '*': 'other' },
      api_versions: { chat: '2024-06-01' },
    });
    const chat = upstreamTarget(k, '/v1/chat/completions', '', 'gpt-4o', defaults);
    expect(chat.url.href).toBe(
      'https://res.example.com/openai/deployments/dep4o/chat/completions?api-version=2024-06-01',
    );
    expect(chat.headers).toEqual({ 'api-key': 'sk-up' });
    expect(upstreamTarget(k, '/v1/embeddings', '', 'ada', defaults).url.href).toBe(
      'https://res.example.com/openai/deployments/other/embeddings?api-version=e',
    );
  });

  it('uses the model as the deployment without a mapping, and no deployment for responses', () => {
    const k = azureOpenai({});
    expect(upstreamTarget(k, '/v1/chat/completions', '', 'm1', defaults).url.pathname).toBe(
      '/openai/deployments/m1/chat/completions',
    );
    expect(upstreamTarget(k, '/v1/responses', '', 'm1', defaults).url.href).toBe(
      'https://res.example.com/openai/responses?api-version=r',
    );
  });
});

describe('Google Vertex AI (cloud_b) targets', () => {
  it('calls base_url and asks for an access token', () => {
    const k = poolKey({
      ...key('https://placeholder.example'),
      type: 'cloud_b',
      config: { base_url: 'https://l1-ai.example.com/v1/projects/p/locations/l1/endpoints/openapi' },
    });
    const target = upstreamTarget(k, '/v1/chat/completions', '', 'gemini', {
      azureOpenAiApiVersions: { chat: '', embeddings: '', audio: '', images: '', responses: '' },
    });
    expect(target.url.href).toBe(
      'https://l1-ai.example.com/v1/projects/p/locations/l1/endpoints/openapi/chat/completions',
    );
    expect(target.needsAccessToken).toBe(true);
    expect(target.headers).toEqual({});
  });
});

describe('anthropic targets', () => {
  const defaults = {
    azureOpenAiApiVersions: { chat: '', embeddings: '', audio: '', images: '', responses: '' },
  };
  const anthropic = poolKey({
    ...key('https://api.anthropic.com/'),
    type: 'anthropic',
    config: { provider_type: 'anthropic' },
  });

  it("sends the key in x-api-key with the client's anthropic-version", () => {
    const target = upstreamTarget(anthropic, '/v1/messages', '', 'claude-sonnet-4-5', defaults, {
      'anthropic-version': '2026-10-21',
    });
    expect(target.url.href).toBe('https://api.anthropic.com/v1/messages');
    expect(target.headers).toEqual({ 'x-api-key': 'sk-up', 'anthropic-version': '2026-10-21' });
  });

  it('sends the documented default anthropic-version when the client names none', () => {
    expect(upstreamTarget(anthropic, '/v1/messages/count_tokens', '', 'c', defaults).headers).toEqual({
      'x-api-key': 'sk-up',
      'anthropic-version': DEFAULT_ANTHROPIC_VERSION,
    });
    expect(DEFAULT_ANTHROPIC_VERSION).toBe('2023-06-01');
  });
});
