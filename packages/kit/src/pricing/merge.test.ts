import { describe, expect, it } from 'vitest';
import { DEFAULT_MODELS, DEFAULT_PRICES } from './default-prices.js';
import { findPriceEntry } from './lookup.js';
import { mergePricing } from './merge.js';
import { PRICING_SECTIONS } from './sections.js';

describe('mergePricing', () => {
  it('replaces only the fields the owner sets', () => {
    const table = mergePricing(DEFAULT_PRICES, '{"ChatPricing":{"gpt-4o":{"OutputText":20}}}');
    expect(table.ChatPricing['gpt-4o']).toEqual({ InputText: 2.5, CachedText: 1.25, OutputText: 20 });
    expect(table.ChatPricing['gpt-4o-mini']).toBe(DEFAULT_PRICES.ChatPricing['gpt-4o-mini']);
  });

  it('merges image Sizes size by size', () => {
    const table = mergePricing(DEFAULT_PRICES, { ImgPricing: { 'dall-e-2': { Sizes: { '512x512': 1 } } } });
    expect(table.ImgPricing['dall-e-2']?.Sizes).toEqual({
      '256x256': 0.016,
      '512x512': 1,
      '1024x1024': 0.02,
    });
  });

  it('adds a new model to this owner only and never changes the defaults', () => {
    const before = JSON.stringify(DEFAULT_PRICES);
    const mine = mergePricing(
      DEFAULT_PRICES,
      '{"ChatPricing":{"mine":{"InputText":1},"__proto__":{"InputText":2}}}',
    );
    const other = mergePricing(DEFAULT_PRICES, '');
    expect(mine.ChatPricing.mine).toEqual({ InputText: 1 });
    expect(Object.hasOwn(mine.ChatPricing, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(mine.ChatPricing)).toBe(Object.prototype);
    expect(other.ChatPricing.mine).toBeUndefined();
    expect(JSON.stringify(DEFAULT_PRICES)).toBe(before);
  });

  it('refuses a PRICING text that config would refuse', () => {
    expect(() => mergePricing(DEFAULT_PRICES, '{"ChatPricing":{"m":{"Foo":1}}}')).toThrow(
      'PRICING.ChatPricing.m.Foo',
    );
  });
});

describe('DEFAULT_PRICES', () => {
  it('holds only known fields with finite non-negative prices, each model with its source', () => {
    for (const [section, models] of Object.entries(DEFAULT_PRICES)) {
      const fields: readonly string[] = PRICING_SECTIONS[section as keyof typeof PRICING_SECTIONS];
      for (const prices of Object.values(models)) {
        for (const [field, value] of Object.entries(prices as Record<string, unknown>)) {
          expect(fields).toContain(field);
          const values = typeof value === 'object' ? Object.values(value as object) : [value];
          values.forEach((price) => expect(Number.isFinite(price) && (price as number) >= 0).toBe(true));
        }
      }
    }
    for (const model of DEFAULT_MODELS) {
      expect(model.source).toMatch(/^https:\/\//);
      expect(model.read).toMatch(/^\d{4}-\d{2}$/);
    }
    expect(new Set(DEFAULT_MODELS.map((model) => model.id)).size).toBe(DEFAULT_MODELS.length);
  });
});

describe('findPriceEntry', () => {
  it.each([
    ['gpt-4o', 'gpt-4o'],
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
    ['claude-3-5-sonnet-20241022', 'claude-3-5-sonnet'],
    ['claude-3-5-sonnet@20240620', 'claude-3-5-sonnet'],
    ['claude-3-5-haiku-latest', 'claude-3-5-haiku'],
    ['gemini-1.5-pro-002', 'gemini-1.5-pro'],
    ['models/gemini-2.0-flash', 'gemini-2.0-flash'],
    ['openai/gpt-4.1-mini', 'gpt-4.1-mini'],
    ['gpt-4o-search-preview', 'gpt-4o'],
    ['gemini-2.5-flash-preview-05-20', 'gemini-2.5-flash'],
    ['o3-mini-2025-01-31', 'o3-mini'],
    ['omni-moderation-2024-09-26', 'omni-moderation'],
    ['gpt-3.5-turbo-instruct', 'gpt-3.5-turbo-instruct'],
    ['gpt-3.5-turbo-instruct-0914', 'gpt-3.5-turbo-instruct'],
    ['davinci-002', 'davinci-002'],
    ['babbage-002', 'babbage-002'],
  ])('prices %s as %s', (model, name) => {
    expect(findPriceEntry(DEFAULT_PRICES, 'ChatPricing', model)?.name).toBe(name);
  });

  it.each(['', 'gpt-4', 'constructor', '__proto__', 'toString', 'mystery-gpt-4o'])(
    'finds nothing for %j',
    (model) => {
      expect(findPriceEntry(DEFAULT_PRICES, 'ChatPricing', model)).toBeUndefined();
    },
  );
});
