import { describe, expect, it } from 'vitest';
import { fallbackPriceEnv, loadConfig } from '../config.js';
import { DEFAULT_FALLBACK_PRICE, parseFallbackPrice } from './fallback.js';

describe('parseFallbackPrice', () => {
  it.each([
    ['', DEFAULT_FALLBACK_PRICE],
    ['10,30', { InputText: 10, OutputText: 30, Call: 0 }],
    [' 10 , 30 , 0.02 ', { InputText: 10, OutputText: 30, Call: 0.02 }],
    ['{"InputText":1,"OutputText":2,"Call":0.5}', { InputText: 1, OutputText: 2, Call: 0.5 }],
    ['{"InputText":1,"OutputText":2}', { InputText: 1, OutputText: 2, Call: 0 }],
  ])('reads %j', (text, price) => {
    expect(parseFallbackPrice(text)).toEqual(price);
  });

  it.each([
    '10',
    '1,2,3,4',
    '-1,2',
    'a,b',
    '1e3,2',
    '{"InputText":1}',
    '{"InputText":1,"OutputText":2,"Foo":1}',
    '{"InputText":-1,"OutputText":2}',
    '{',
    '0,0',
    '0,0,0',
  ])('refuses %j', (text) => {
    expect(parseFallbackPrice(text)).toHaveProperty('invalid');
  });
});

describe('GW_FALLBACK_PRICE', () => {
  it('is read by loadConfig into a price, or refused naming the variable', () => {
    expect(loadConfig(fallbackPriceEnv, { GW_FALLBACK_PRICE: '2,8,0.001' })).toEqual({
      GW_FALLBACK_PRICE: { InputText: 2, OutputText: 8, Call: 0.001 },
    });
    expect(loadConfig(fallbackPriceEnv, {}).GW_FALLBACK_PRICE).toEqual(DEFAULT_FALLBACK_PRICE);
    expect(() => loadConfig(fallbackPriceEnv, { GW_FALLBACK_PRICE: '0,0' })).toThrow(/GW_FALLBACK_PRICE/);
  });
});
