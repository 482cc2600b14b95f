import { describe, expect, it } from 'vitest';
import {
  AI_ENDPOINTS,
  AI_RESOURCE_PATHS,
  allowsResource,
  canonicalAiPath,
  findAiEndpoint,
  isAnsweredByEdge,
} from './ai-endpoints.js';

describe('canonicalAiPath', () => {
  it.each([
    ['/v1/chat/completions', '/v1/chat/completions'],
    ['/v1//chat///completions', '/v1/chat/completions'],
    ['/v1/./chat/completions', '/v1/chat/completions'],
    ['/v1/x/../chat/completions', '/v1/chat/completions'],
    ['/v1/%2e%2e/admin/secret', '/admin/secret'],
    ['/v1/%2E%2E/admin/secret', '/admin/secret'],
    ['/v1/..%2fadmin', '/admin'],
    ['/v1/%2e%2e%5cadmin', '/admin'],
    ['/v1\\chat\\completions', '/v1/chat/completions'],
    ['/v1/chat%2Fcompletions', '/v1/chat/completions'],
    ['/models', '/v1/models'],
    ['/models/gpt-4o', '/models/gpt-4o'],
    ['/v1/files/file-a_B9/content', '/v1/files/file-a_B9/content'],
    ['/v1/chat/completions/', '/v1/chat/completions'],
    ['/v1/chat/completions/.', '/v1/chat/completions'],
  ])('%s reads as %s', (raw, canonical) => {
    expect(canonicalAiPath(raw)).toBe(canonical);
  });

  it('refuses what cannot be decoded or holds a NUL', () => {
    expect(canonicalAiPath('/v1/%E0%A4%A')).toBeUndefined();
    expect(canonicalAiPath('/v1/chat%00/completions')).toBeUndefined();
  });
});

describe('findAiEndpoint', () => {
  it('serves only catalogue entries with their own method', () => {
    expect(findAiEndpoint('POST', '/v1/chat/completions')?.path).toBe('/v1/chat/completions');
    expect(findAiEndpoint('post', '/v1//embeddings')?.path).toBe('/v1/embeddings');
    expect(findAiEndpoint('GET', '/models')?.path).toBe('/v1/models');
    for (const [method, path] of [
      ['GET', '/v1/chat/completions'],
      ['GET', '/v1/files'],
      ['POST', '/v1/files'],
      ['GET', '/v1/batches'],
      ['POST', '/v1/fine_tuning/jobs'],
      ['POST', '/v1/assistants'],
      ['POST', '/v1/threads'],
      ['POST', '/v1/vector_stores'],
      ['GET', '/v1/responses/resp_123'],
      ['DELETE', '/v1/models/m'],
      ['GET', '/v1/%2e%2e/admin/secret'],
      ['POST', '/V1/CHAT/COMPLETIONS'],
    ]) {
      expect(findAiEndpoint(method ?? '', path ?? '')).toBeUndefined();
    }
  });

  it('serves realtime only as a WebSocket, and nothing else as one', () => {
    expect(findAiEndpoint('GET', '/v1/realtime')).toBeUndefined();
    expect(findAiEndpoint('GET', '/v1/realtime', true)?.model).toBe('query');
    expect(findAiEndpoint('GET', '/v1/models', true)).toBeUndefined();
  });
});

describe('resource allowlists', () => {
  const chat = AI_ENDPOINTS.find((e) => e.path === '/v1/chat/completions');
  const models = AI_ENDPOINTS.find((e) => e.path === '/v1/models');

  it('allow everything when empty, only listed paths otherwise, and model listings always', () => {
    if (!chat || !models) {
      throw new Error('catalogue entries missing');
    }
    expect(allowsResource([], chat)).toBe(true);
    expect(allowsResource(['/v1/embeddings'], chat)).toBe(false);
    expect(allowsResource(['/v1/chat/completions'], chat)).toBe(true);
    expect(allowsResource(['/v1/embeddings'], models)).toBe(true);
    expect(AI_RESOURCE_PATHS).not.toContain('/v1/models');
    expect(AI_RESOURCE_PATHS).toContain('/v1/realtime');
  });
});

describe('the model listing in the catalogue', () => {
  it('is answered by the edge for GET /v1/models and /models; everything else is forwarded', () => {
    const answeredByEdge = (method: string, path: string) =>
      findAiEndpoint(method, path)?.answeredByEdge === true;
    expect(answeredByEdge('GET', '/v1/models')).toBe(true);
    expect(answeredByEdge('get', '/models')).toBe(true);
    expect(answeredByEdge('POST', '/v1/models')).toBe(false);
    expect(answeredByEdge('POST', '/v1/chat/completions')).toBe(false);
    expect(answeredByEdge('GET', '/v1/models/gpt-4o')).toBe(false);
  });
});

describe('isAnsweredByEdge', () => {
  it('is the model listing alone, by either spelling, and never a call of another method', () => {
    expect(isAnsweredByEdge('GET', '/v1/models')).toBe(true);
    expect(isAnsweredByEdge('get', '/models')).toBe(true);
    expect(isAnsweredByEdge('POST', '/v1/models')).toBe(false);
    expect(isAnsweredByEdge('POST', '/v1/chat/completions')).toBe(false);
    expect(isAnsweredByEdge('GET', '/v1/responses/resp_1')).toBe(false);
  });
});
