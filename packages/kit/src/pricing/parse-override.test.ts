import { describe, expect, it } from 'vitest';
import { PRICING_MAX_BYTES, parsePricingOverride } from './parse-override.js';

const field = (text: string) => {
  try {
    parsePricingOverride(text);
    return 'accepted';
  } catch (error) {
    return (error as { details?: { field?: string } }).details?.field;
  }
};

describe('parsePricingOverride', () => {
  it('accepts known sections and fields, and new model names', () => {
    const pricing = {
      ChatPricing: {
        'gpt-4o': { InputText: 2.5, OutputText: 10, Rates: 1 },
        'my-new-model': { InputText: 0 },
      },
      ImgPricing: { 'dall-e-3': { Call: 0.04, Sizes: { '1024x1024': 0.04 } } },
      AudioPricing: { whisper: { Input: 1, Call: 0.006 } },
      CallPricing: { search: { Call: 0.01 } },
      RerankPricing: { rerank: { Input: 0.1 } },
      FineTuningPricing: { 'gpt-4o-mini': { InputText: 0.3, OutputText: 1.2 } },
    };
    expect(parsePricingOverride(JSON.stringify(pricing))).toEqual(pricing);
  });

  it('takes exactly 1024 entries and exactly 128 KB, refuses one more', () => {
    const entries = (n: number) =>
      JSON.stringify({
        CallPricing: Object.fromEntries(Array.from({ length: n }, (_, i) => [`m${i}`, { Call: 1 }])),
      });
    expect(field(entries(1024))).toBe('accepted');
    expect(field('{"CallPricing":{"m":{"Call":1000000,"Rates":1000000}}}')).toBe('accepted');
    expect(field(entries(1025))).toBe('PRICING');
    const base = JSON.stringify({ ChatPricing: { x: { InputText: 1 } } });
    const padded = (size: number) => base + ' '.repeat(size - base.length);
    expect(field(padded(PRICING_MAX_BYTES))).toBe('accepted');
    expect(field(padded(PRICING_MAX_BYTES + 1))).toBe('PRICING');
  });

  it.each([
    ['{"ChatPricing":{"m":{"InputText":-1}}}', 'PRICING.ChatPricing.m.InputText'],
    ['{"ChatPricing":{"m":{"InputText":"1"}}}', 'PRICING.ChatPricing.m.InputText'],
    ['{"ChatPricing":{"m":{"InputText":1e999}}}', 'PRICING.ChatPricing.m.InputText'],
    ['{"ChatPricing":{"m":{"InputText":1e308}}}', 'PRICING.ChatPricing.m.InputText'],
    ['{"ChatPricing":{"m":{"Rates":1000000.5}}}', 'PRICING.ChatPricing.m.Rates'],
    ['{"ImgPricing":{"m":{"Sizes":{"1x1":2e6}}}}', 'PRICING.ImgPricing.m.Sizes.1x1'],
    ['{"ChatPricing":{"m":{"InputText":null}}}', 'PRICING.ChatPricing.m.InputText'],
    ['{"ChatPricing":{"m":{"Sizes":{}}}}', 'PRICING.ChatPricing.m.Sizes'],
    ['{"ImgPricing":{"m":{"Sizes":{"big":1}}}}', 'PRICING.ImgPricing.m.Sizes.big'],
    ['{"ImgPricing":{"m":{"Sizes":{"1x1":-2}}}}', 'PRICING.ImgPricing.m.Sizes.1x1'],
    ['{"VideoPricing":{}}', 'PRICING.VideoPricing'],
    ['{"ChatPricing":[]}', 'PRICING.ChatPricing'],
    ['{"ChatPricing":{"m":5}}', 'PRICING.ChatPricing.m'],
    ['[]', 'PRICING'],
    ['{"ChatPricing":', 'PRICING'],
    ['NaN', 'PRICING'],
  ])('refuses %s naming %s', (text, name) => {
    expect(field(text)).toBe(name);
  });
});
