import { describe, expect, it } from 'vitest';
import { logTimestamp, redactSecrets } from './operation-log.js';

describe('redactSecrets', () => {
  it('scrubs API keys, bearer tokens and key=value secrets', () => {
    expect(redactSecrets('new key sk-gw-AbCdEfGhIjKlMnOp')).toBe('new key [redacted]');
    expect(redactSecrets('Authorization: Bearer abcdefghijkl')).toBe('Authorization: Bearer [redacted]');
    expect(redactSecrets('api_key=supersecret1 token: "abcdefgh"')).toBe(
      'api_key=[redacted] token: "[redacted]"',
    );
  });

  it('leaves ordinary text and short prefixes alone', () => {
    expect(redactSecrets('created alice01 (12) with 5 USD')).toBe('created alice01 (12) with 5 USD');
    expect(redactSecrets('key_prefix sk-gw')).toBe('key_prefix sk-gw');
  });
});

describe('logTimestamp', () => {
  it('writes YYYY-MM-DD HH:MM:SS in UTC', () => {
    expect(logTimestamp(new Date('2026-11-22T07:08:09.123Z'))).toBe('2026-11-22 07:08:09');
  });
});
