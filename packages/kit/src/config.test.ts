import { describe, expect, it } from 'vitest';
import { ConfigError, env, loadConfig, natsEnv, redisEnv, serviceEnv } from './config.js';

const TOKEN = 'a-token-of-16-ch';

const shape = {
  ...serviceEnv,
  ...natsEnv,
  ...redisEnv,
  PORT: env.port(8080),
  DEBUG: env.flag(false),
  SAFE: env.flag(true),
  PUBLIC_URL: env.optionalUrl(),
  UPSTREAM_ADDR: env.address('127.0.0.1:50051'),
  TIMEOUT_MS: env.integer(30_000, { min: 100 }),
};

function problemsOf(vars: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(shape, vars);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected loadConfig to refuse the environment');
}

function variablesIn(problems: string[]): string[] {
  return problems.map((problem) => problem.split(':')[0] ?? '').sort();
}

describe('loadConfig', () => {
  it('applies every default when only the required variables are set', () => {
    const config = loadConfig(shape, { GW_INTERNAL_TOKEN: TOKEN });

    expect(config).toEqual({
      LOG_LEVEL: 'info',
      GW_INTERNAL_TOKEN: TOKEN,
      NATS_URL: 'nats://127.0.0.1:4222',
      REDIS_URL: 'redis://127.0.0.1:6379',
      PORT: 8080,
      DEBUG: false,
      SAFE: true,
      PUBLIC_URL: undefined,
      UPSTREAM_ADDR: '127.0.0.1:50051',
      TIMEOUT_MS: 30_000,
    });
  });

  it('keeps the values that are set and drops undeclared variables', () => {
    const config = loadConfig(shape, {
      GW_INTERNAL_TOKEN: TOKEN,
      LOG_LEVEL: 'debug',
      NATS_URL: 'nats://nats.internal:4222',
      PORT: '0',
      PUBLIC_URL: 'https://gw.example.com',
      UPSTREAM_ADDR: 'accounts:50051',
      PATH: '/usr/bin',
    });

    expect(config).toMatchObject({
      LOG_LEVEL: 'debug',
      NATS_URL: 'nats://nats.internal:4222',
      PORT: 0,
      PUBLIC_URL: 'https://gw.example.com',
      UPSTREAM_ADDR: 'accounts:50051',
    });
    expect(config).not.toHaveProperty('PATH');
  });

  it.each([
    ['true', true],
    ['1', true],
    ['yes', true],
    ['on', true],
    ['false', false],
    ['0', false],
    ['no', false],
    ['off', false],
  ])('reads the flag value %j as %s', (value, expected) => {
    const config = loadConfig(shape, { GW_INTERNAL_TOKEN: TOKEN, DEBUG: value, SAFE: value });

    expect(config.DEBUG).toBe(expected);
    expect(config.SAFE).toBe(expected);
  });

  it.each(['maybe', 'TRUE', ''])('refuses the flag value %j', (value) => {
    expect(variablesIn(problemsOf({ GW_INTERNAL_TOKEN: TOKEN, DEBUG: value }))).toEqual(['DEBUG']);
  });

  it('treats an empty optional URL as unset', () => {
    expect(loadConfig(shape, { GW_INTERNAL_TOKEN: TOKEN, PUBLIC_URL: '' }).PUBLIC_URL).toBeUndefined();
  });

  it.each(['65535', '1'])('accepts the port %j', (value) => {
    expect(loadConfig(shape, { GW_INTERNAL_TOKEN: TOKEN, PORT: value }).PORT).toBe(Number(value));
  });

  it.each(['65536', '-1', 'abc', '', ' ', '0x50', '8e3', '80.5'])('refuses the port %j', (value) => {
    expect(variablesIn(problemsOf({ GW_INTERNAL_TOKEN: TOKEN, PORT: value }))).toEqual(['PORT']);
  });

  it.each(['localhost', 'host:', ':80', 'two words:80'])('refuses the address %j', (value) => {
    expect(variablesIn(problemsOf({ GW_INTERNAL_TOKEN: TOKEN, UPSTREAM_ADDR: value }))).toEqual([
      'UPSTREAM_ADDR',
    ]);
  });

  it('reports a bad URL, a bad port and a short token together in one error', () => {
    const problems = problemsOf({
      GW_INTERNAL_TOKEN: 'short',
      NATS_URL: 'not a url',
      PORT: '70000',
    });

    expect(variablesIn(problems)).toEqual(['GW_INTERNAL_TOKEN', 'NATS_URL', 'PORT']);
    expect(problems.find((problem) => problem.startsWith('GW_INTERNAL_TOKEN'))).toContain(
      'at least 16 characters',
    );
    expect(problems.find((problem) => problem.startsWith('NATS_URL'))).toContain('must be a URL');
  });

  it('lists every problem in the error message', () => {
    try {
      loadConfig(shape, { NATS_URL: 'not a url', LOG_LEVEL: 'loud' });
      expect.unreachable('loadConfig accepted a bad environment');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const { message, name } = error as ConfigError;
      expect(name).toBe('ConfigError');
      expect(message).toMatch(/^invalid configuration:/);
      for (const variable of ['GW_INTERNAL_TOKEN', 'NATS_URL', 'LOG_LEVEL']) {
        expect(message).toContain(`${variable}:`);
      }
    }
  });

  it('returns a frozen object', () => {
    const config = loadConfig(shape, { GW_INTERNAL_TOKEN: TOKEN });

    expect(Object.isFrozen(config)).toBe(true);
    expect(() => {
      (config as { PORT: number }).PORT = 1;
    }).toThrow(TypeError);
    expect(config.PORT).toBe(8080);
  });

  it('reads whole numbers exactly: digits only, within the range', () => {
    expect(loadConfig(shape, { GW_INTERNAL_TOKEN: TOKEN, TIMEOUT_MS: '2500' }).TIMEOUT_MS).toBe(2500);
    for (const value of ['', ' ', '0x50', '8e3', '1.5', '99', 'true']) {
      expect(variablesIn(problemsOf({ GW_INTERNAL_TOKEN: TOKEN, TIMEOUT_MS: value }))).toEqual([
        'TIMEOUT_MS',
      ]);
    }
  });
});
