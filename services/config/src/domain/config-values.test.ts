import { describe, expect, it } from 'vitest';
import { applyConfigChanges } from './config-values.js';
import { findSwitchOverCycle, mapperEntries } from './mapper-values.js';

const put = (changes: Record<string, string>, stored: Record<string, string> = {}) =>
  applyConfigChanges(stored, changes, { mergeLimits: false });
const merge = (changes: Record<string, string>, stored: Record<string, string> = {}) =>
  applyConfigChanges(stored, changes, { mergeLimits: true });
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as { message: string; details?: { field?: string } }).details?.field;
  }
  return 'accepted';
};

describe('mapper formats', () => {
  it('trims pairs, adds, replaces and removes', () => {
    expect(put({ MODEL_MAPPER: ' gpt-4 = gpt-4o ,  claude-* =claude-3-5-sonnet ' })).toEqual({
      MODEL_MAPPER: 'gpt-4=gpt-4o,claude-*=claude-3-5-sonnet',
    });
    expect(put({ MODEL_MAPPER: 'a=b2,-c, d=e' }, { MODEL_MAPPER: 'a=b,c=x' })).toEqual({
      MODEL_MAPPER: 'a=b2,d=e',
    });
    expect(put({ MODEL_MAPPER: '-a' }, { MODEL_MAPPER: 'a=b' })).toEqual({ MODEL_MAPPER: undefined });
    expect(put({ LEVEL_MAPPER: 'gpt-4*=2, claude*=3' })).toEqual({ LEVEL_MAPPER: 'gpt-4*=2,claude*=3' });
  });

  it('parses failover chains', () => {
    expect(put({ MODEL_FAILOVER: 'gpt-4o=gpt-4o-mini| gpt-4-turbo' })).toEqual({
      MODEL_FAILOVER: 'gpt-4o=gpt-4o-mini|gpt-4-turbo',
    });
  });

  it('accepts switch-over chains and refuses cycles', () => {
    expect(put({ SWITCH_OVER: '1=2,2=3' })).toEqual({ SWITCH_OVER: '1=2,2=3' });
    expect(findSwitchOverCycle(mapperEntries('1=2,2=3,3=1'))).toBeDefined();
    expect(refusal(() => put({ SWITCH_OVER: '1=2,2=1' }))).toBe('SWITCH_OVER');
    expect(refusal(() => put({ SWITCH_OVER: '3=1' }, { SWITCH_OVER: '1=2,2=3' }))).toBe('SWITCH_OVER');
    expect(refusal(() => put({ SWITCH_OVER: '1=1' }))).toBe('SWITCH_OVER');
  });

  it.each([
    [{ MODEL_MAPPER: 'gpt-4' }, 'MODEL_MAPPER'],
    [{ MODEL_MAPPER: '=gpt-4' }, 'MODEL_MAPPER'],
    [{ MODEL_MAPPER: 'gpt-4=' }, 'MODEL_MAPPER.gpt-4'],
    [{ MODEL_MAPPER: 'gpt 4=x' }, 'MODEL_MAPPER.gpt 4'],
    [{ MODEL_MAPPER: 'a=b=c' }, 'MODEL_MAPPER.a'],
    [{ MODEL_MAPPER: '*a*b*c*d*e*f*g*h*=x' }, 'MODEL_MAPPER.*a*b*c*d*e*f*g*h*'],
    [{ LEVEL_MAPPER: '-*a*b*c*d*e*f*g*h*' }, 'LEVEL_MAPPER.*a*b*c*d*e*f*g*h*'],
    [{ LEVEL_MAPPER: 'gpt-4=x' }, 'LEVEL_MAPPER.gpt-4'],
    [{ LEVEL_MAPPER: 'gpt-4=10' }, 'LEVEL_MAPPER.gpt-4'],
    [{ LEVEL_MAPPER: 'gpt-4=-1' }, 'LEVEL_MAPPER.gpt-4'],
    [{ SWITCH_OVER: 'a=1' }, 'SWITCH_OVER.a'],
    [{ MODEL_FAILOVER: 'a=b||c' }, 'MODEL_FAILOVER.a'],
    [{ MODEL_FAILOVER: 'a=a' }, 'MODEL_FAILOVER.a'],
    [{ RESOURCES: '/v1/chat/completions, v1/models' }, 'RESOURCES.v1/models'],
    [{ RESOURCES: '/v1/files' }, 'RESOURCES./v1/files'],
    [{ RESOURCES: '/v1/chat' }, 'RESOURCES./v1/chat'],
    [{ RESOURCES: '/v1/../admin' }, 'RESOURCES./v1/../admin'],
    [{ RESOURCES: '/v1//chat' }, 'RESOURCES./v1//chat'],
    [{ MODEL_LIMITS: '{"gpt-4":{"rpm":1.5}}' }, 'MODEL_LIMITS.gpt-4.rpm'],
    [{ MODEL_LIMITS: '{"gpt-4":{"rpm":-1}}' }, 'MODEL_LIMITS.gpt-4.rpm'],
    [{ MODEL_LIMITS: '{"gpt-4":{"rpm":"5"}}' }, 'MODEL_LIMITS.gpt-4.rpm'],
    [{ MODEL_LIMITS: '{"gpt-4":{"rps":5}}' }, 'MODEL_LIMITS.gpt-4.rps'],
    [{ MODEL_LIMITS: '{"gpt-4":5}' }, 'MODEL_LIMITS.gpt-4'],
    [{ MODEL_LIMITS: '[1]' }, 'MODEL_LIMITS'],
    [{ MODEL_LIMITS: 'nope' }, 'MODEL_LIMITS'],
    [{ MODEL_LIMITS: '{"*a*b*c*d*e*f*g*h*":{"rpm":1}}' }, 'MODEL_LIMITS.*a*b*c*d*e*f*g*h*'],
    [{ SVC_MAIL: 'not-mail' }, 'SVC_MAIL'],
    [{ SVC_MAIL: 'a@b.example.com\r\nBcc: x@y.z' }, 'SVC_MAIL'],
    [{ EMAIL_PORT: '0' }, 'EMAIL_PORT'],
    [{ EMAIL_PORT: '70000' }, 'EMAIL_PORT'],
    [{ EMAIL_PORT: '25a' }, 'EMAIL_PORT'],
    [{ EMAIL_TLS: 'maybe' }, 'EMAIL_TLS'],
    [{ EMAIL_SMTP: 'smtp server' }, 'EMAIL_SMTP'],
    [{ EMAIL_AUTH: 'user\nname' }, 'EMAIL_AUTH'],
    [{ model_mapper: 'a=b' }, 'model_mapper'],
    [{ EMAIL_SERVER: 'x' }, 'EMAIL_SERVER'],
    [{}, 'configs'],
  ])('refuses %j naming %s', (changes, field) => {
    expect(refusal(() => put(changes))).toBe(field);
  });
});

describe('other keys', () => {
  it('normalizes resources, limits and mail settings', () => {
    expect(put({ RESOURCES: '/v1/chat/completions, /v1/models\n/v1/embeddings' })).toEqual({
      RESOURCES: '/v1/chat/completions,/v1/models,/v1/embeddings',
    });
    expect(put({ MODEL_LIMITS: '{"gpt-4":{"rpm":10,"tpd":0}}' })).toEqual({
      MODEL_LIMITS: '{"gpt-4":{"rpm":10,"tpd":0}}',
    });
    expect(
      put({ EMAIL_PORT: '587', EMAIL_TLS: 'TRUE', SVC_MAIL: ' ops@example.com ', EMAIL_PASS: 'p@ss word' }),
    ).toEqual({
      EMAIL_PORT: '587',
      EMAIL_TLS: 'true',
      SVC_MAIL: 'ops@example.com',
      EMAIL_PASS: 'p@ss word',
    });
    expect(put({ MODEL_MAPPER: '', PRICING: '' }, { MODEL_MAPPER: 'a=b' })).toEqual({
      MODEL_MAPPER: 'a=b',
      PRICING: undefined,
    });
  });

  it('merges MODEL_LIMITS for /x-conf: clear, remove, merge', () => {
    const stored = { MODEL_LIMITS: '{"a":{"rpm":1},"b":{"rpm":2}}' };
    expect(merge({ MODEL_LIMITS: '*' }, stored)).toEqual({ MODEL_LIMITS: undefined });
    expect(merge({ MODEL_LIMITS: '=' }, stored)).toEqual({ MODEL_LIMITS: undefined });
    expect(merge({ MODEL_LIMITS: '-a' }, stored)).toEqual({ MODEL_LIMITS: '{"b":{"rpm":2}}' });
    expect(merge({ MODEL_LIMITS: '{"a":{"tpm":5},"c":{"rpd":3}}' }, stored)).toEqual({
      MODEL_LIMITS: '{"a":{"rpm":1,"tpm":5},"b":{"rpm":2},"c":{"rpd":3}}',
    });
    expect(refusal(() => merge({ MODEL_LIMITS: '-a,b' }, stored))).toBe('MODEL_LIMITS');
  });

  it('keeps a stored secret when the mask it is shown as comes back', () => {
    const stored = { EMAIL_PASS: 'gw1.cipher' };
    expect(
      applyConfigChanges(stored, { EMAIL_PASS: '********', EMAIL_PORT: '25' }, { mergeLimits: false }),
    ).toEqual({
      EMAIL_PORT: '25',
    });
  });
});
