import { describe, expect, it } from 'vitest';
import { nodeHeaders } from './response-headers.js';

describe('nodeHeaders', () => {
  it('gives repeated headers the shape node:http gives them', () => {
    expect(
      nodeHeaders({
        'content-type': ['text/event-stream', 'application/json'],
        'content-length': ['12', '13'],
        'retry-after': ['2', '30'],
        'cache-control': ['no-cache', 'no-store'],
        'set-cookie': ['a=1', 'b=2'],
        cookie: ['a=1', 'b=2'],
        'x-request-id': 'req_1',
      }),
    ).toEqual({
      'content-type': 'text/event-stream',
      'content-length': '12',
      'retry-after': '2',
      'cache-control': 'no-cache, no-store',
      'set-cookie': ['a=1', 'b=2'],
      cookie: 'a=1; b=2',
      'x-request-id': 'req_1',
    });
  });
});
