import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './log.js';
import { LOG_CENSOR, withoutSecrets } from './log-secrets.js';

/** A logger whose lines are collected, parsed. */
function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { log: createLogger('test', 'info', sink), lines };
}

describe('secrets in log lines', () => {
  it('censors secret fields at every depth, in objects, arrays and errors, and leaves the rest', () => {
    const error = Object.assign(new TypeError('upstream refused'), {
      request: { headers: { authorization: 'Bearer sk-live', accept: 'application/json' } },
    });
    const logged = {
      key: 'sk-top',
      account: { id: '7', apiKey: 'sk-one-down', limits: [{ token: 't-in-array', rpm: 3 }] },
      err: error,
      keyId: '12',
    };
    const shown = withoutSecrets(logged);
    expect(shown).toEqual({
      key: LOG_CENSOR,
      account: { id: '7', apiKey: LOG_CENSOR, limits: [{ token: LOG_CENSOR, rpm: 3 }] },
      err: expect.any(TypeError),
      keyId: '12',
    });
    expect(shown.err.message).toBe('upstream refused');
    expect(shown.err.stack).toBe(error.stack);
    expect(shown.err.request.headers).toEqual({ authorization: LOG_CENSOR, accept: 'application/json' });
    // What was logged is not changed: the censored parts are copies.
    expect(logged.account.apiKey).toBe('sk-one-down');
    expect(error.request.headers.authorization).toBe('Bearer sk-live');
  });

  it('hands back the same object when there is nothing to censor (the access line)', () => {
    const line = { method: 'POST', route: '/v1/chat/completions', status: 200, keyId: '3', nested: { a: 1 } };
    expect(withoutSecrets(line)).toBe(line);
  });

  it('stops at its depth bound on a cyclic value', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(withoutSecrets(cyclic)).toBe(cyclic);
  });

  it("a service logger writes censored lines, a child logger's own secret fields included", async () => {
    const { log, lines } = capturedLogger();
    log
      .child({ token: 'bound-secret' })
      .warn({ password: 'hunter2', user: { secretKey: 'sk-x', name: 'ann' } }, 'signing in');
    await expect.poll(() => lines.length).toBe(1);
    expect(lines[0]).toMatchObject({
      token: LOG_CENSOR,
      password: LOG_CENSOR,
      user: { secretKey: LOG_CENSOR, name: 'ann' },
      msg: 'signing in',
    });
    expect(JSON.stringify(lines[0])).not.toMatch(/hunter2|sk-x|bound-secret/);
  });
});
