import { configViewObject } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS } from './config-values.js';
import { configView } from './config-view.js';

const stored = {
  MODEL_MAPPER: 'gpt-4o*=gpt-4o-2024,gpt-4*=gpt-4-turbo',
  MODEL_FAILOVER: 'x=y|z',
  LEVEL_MAPPER: 'gpt*=2,*=1',
  SWITCH_OVER: '2=1,1=3',
  RESOURCES: '/v1/models,/v1/chat/completions',
  MODEL_LIMITS: '{"a":{"rpm":1,"tpd":0},"b":{}}',
  PRICING: '{"ChatPricing":{}}',
  EMAIL_PASS: 'gw1.cipher',
  EMAIL_PORT: '587',
};

describe('configView', () => {
  it('types every key, mapper entries in their stored order, EMAIL_PASS masked', () => {
    expect(configView(stored)).toEqual({
      modelMapper: [
        { pattern: 'gpt-4o*', model: 'gpt-4o-2024' },
        { pattern: 'gpt-4*', model: 'gpt-4-turbo' },
      ],
      modelFailover: [{ pattern: 'x', backups: ['y', 'z'] }],
      levelMapper: [
        { pattern: 'gpt*', level: 2 },
        { pattern: '*', level: 1 },
      ],
      switchOver: [
        { level: 2, backupLevel: 1 },
        { level: 1, backupLevel: 3 },
      ],
      resources: ['/v1/models', '/v1/chat/completions'],
      modelLimits: {
        entries: [
          { pattern: 'a', limits: { rpm: 1n, tpd: 0n } },
          { pattern: 'b', limits: {} },
        ],
      },
      pricing: '{"ChatPricing":{}}',
      svcMail: '',
      emailSmtp: '',
      emailPort: '587',
      emailAuth: '',
      emailPass: '********',
      emailTls: '',
    });
  });

  it('fills the defaults of an empty configuration', () => {
    const view = configView({});
    expect(view).toMatchObject({
      modelMapper: [],
      resources: [],
      modelLimits: { entries: [] },
      emailPass: '',
    });
  });

  it('renders as the GET /x-config object, keys in the order the service lists them', () => {
    const object = configViewObject(configView(stored));
    expect(object).toEqual({
      MODEL_MAPPER: { 'gpt-4o*': 'gpt-4o-2024', 'gpt-4*': 'gpt-4-turbo' },
      MODEL_FAILOVER: { x: ['y', 'z'] },
      LEVEL_MAPPER: { 'gpt*': 2, '*': 1 },
      SWITCH_OVER: { '2': 1, '1': 3 },
      RESOURCES: { '/v1/models': true, '/v1/chat/completions': true },
      MODEL_LIMITS: { a: { rpm: 1, tpd: 0 }, b: {} },
      PRICING: '{"ChatPricing":{}}',
      SVC_MAIL: '',
      EMAIL_SMTP: '',
      EMAIL_PORT: '587',
      EMAIL_AUTH: '',
      EMAIL_PASS: '********',
      EMAIL_TLS: '',
    });
    expect(Object.keys(object)).toEqual(CONFIG_KEYS);
    expect(Object.keys(object.MODEL_MAPPER as object)).toEqual(['gpt-4o*', 'gpt-4*']);
  });
});
