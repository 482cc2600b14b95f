import { describe, expect, it } from 'vitest';
import { isStoreUnavailable } from './dependency-errors.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isStoreUnavailable', () => {
  it('is true for a refused or cut connection, a connect timeout and a shutting-down server, also as a cause', () => {
    expect(isStoreUnavailable(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe(true);
    expect(isStoreUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isStoreUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isStoreUnavailable(withCode('terminating connection due to administrator command', '57P01'))).toBe(
      true,
    );
    expect(isStoreUnavailable(new Error('Failed query', { cause: withCode('x', '08006') }))).toBe(true);
    expect(isStoreUnavailable(new Error('Command timed out'))).toBe(true);
  });

  it('is false for a bug or bad data', () => {
    expect(isStoreUnavailable(withCode('duplicate key value', '23505'))).toBe(false);
    expect(isStoreUnavailable(withCode('invalid byte sequence', '22021'))).toBe(false);
    expect(isStoreUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isStoreUnavailable('a string')).toBe(false);
  });
});
