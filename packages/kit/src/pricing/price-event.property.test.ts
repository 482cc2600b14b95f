import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergePricing } from './merge.js';
import { priceEvent } from './price-event.js';
import { emptyPriceTable } from './sections.js';

/**
 * The reference: prices are drawn as integers of 1e-4 USD (per 1M tokens, or per call) and
 * multipliers as integers of 0.01; token classes are drawn apart and only then added into the
 * totals the upstream reports. So the reference needs no subtraction and no decimal reading:
 * USD × 1e16 = Σ tokens × price units × 1e0 + Σ calls × price units × 1e6, times the three
 * multipliers' units; nano-USD = that / 1e7, half up.
 */
const CHAT_CLASSES = [
  ['text', 'InputText'],
  ['cached', 'CachedText'],
  ['cacheWrite', 'CacheWrite'],
  ['audioIn', 'InputAudio'],
  ['imageIn', 'InputImage'],
  ['textOut', 'OutputText'],
  ['reasoning', 'ReasonText'],
  ['audioOut', 'OutputAudio'],
  ['imageOut', 'OutputImage'],
] as const;

const priceUnits = fc.integer({ min: 0, max: 10_000_000 });
const tokens = fc.integer({ min: 0, max: 2_000_000 });
const multiplier = fc.integer({ min: 1, max: 100_000 });

const chatCase = fc.record({
  prices: fc.record(
    Object.fromEntries(CHAT_CLASSES.map(([, field]) => [field, priceUnits])) as Record<
      string,
      fc.Arbitrary<number>
    >,
  ),
  call: priceUnits,
  rates: multiplier,
  tokens: fc.record(
    Object.fromEntries(CHAT_CLASSES.map(([name]) => [name, tokens])) as Record<string, fc.Arbitrary<number>>,
  ),
  calls: fc.integer({ min: 0, max: 3 }),
  accountRates: multiplier,
  factor: multiplier,
});

function referenceNano(sum1e16: bigint): bigint {
  return (sum1e16 + 5_000_000n) / 10_000_000n;
}

describe('priceEvent against an independent reference', () => {
  it('charges every chat token class, call fee and multiplier exactly', () => {
    fc.assert(
      fc.property(chatCase, (c) => {
        const table = mergePricing(emptyPriceTable(), {
          ChatPricing: {
            m: {
              ...Object.fromEntries(Object.entries(c.prices).map(([field, units]) => [field, units / 1e4])),
              Call: c.call / 1e4,
              Rates: c.rates / 100,
            },
          },
        });
        const t = c.tokens as Record<(typeof CHAT_CLASSES)[number][0], number>;
        const prompt = t.text + t.cached + t.cacheWrite + t.audioIn + t.imageIn;
        const completion = t.textOut + t.reasoning + t.audioOut + t.imageOut;
        const priced = priceEvent(
          {
            modelServed: 'm',
            modelRequested: 'm',
            path: '/v1/chat/completions',
            promptTokens: BigInt(prompt),
            completionTokens: BigInt(completion),
            cachedTokens: BigInt(t.cached),
            cacheWriteTokens: BigInt(t.cacheWrite),
            reasoningTokens: BigInt(t.reasoning),
            audioInTokens: BigInt(t.audioIn),
            audioOutTokens: BigInt(t.audioOut),
            imageInTokens: BigInt(t.imageIn),
            imageOutTokens: BigInt(t.imageOut),
            imageCount: 0,
            imageSize: '',
            callCount: c.calls,
            audioMs: 0n,
          },
          table,
          { accountRates: c.accountRates / 100, factor: c.factor / 100 },
          { InputText: 1, OutputText: 1, Call: 1 },
        );
        let units = BigInt(c.calls * c.call) * 1_000_000n;
        for (const [name, field] of CHAT_CLASSES) {
          units += BigInt(t[name]) * BigInt(c.prices[field] ?? 0);
        }
        const expected = referenceNano(units * BigInt(c.rates) * BigInt(c.accountRates) * BigInt(c.factor));
        expect(priced).toEqual({ nanoUsd: expected, fallback: false, pricedAs: 'm' });
      }),
      { numRuns: 500 },
    );
  });

  it('charges images per size and call exactly', () => {
    fc.assert(
      fc.property(
        priceUnits,
        priceUnits,
        fc.integer({ min: 0, max: 10 }),
        multiplier,
        multiplier,
        (size, call, images, rates, factor) => {
          const table = mergePricing(emptyPriceTable(), {
            ImgPricing: { img: { Call: call / 1e4, Sizes: { '1024x1024': size / 1e4 } } },
          });
          const priced = priceEvent(
            {
              modelServed: 'img',
              modelRequested: 'img',
              path: '/v1/images/generations',
              promptTokens: 0n,
              completionTokens: 0n,
              cachedTokens: 0n,
              cacheWriteTokens: 0n,
              reasoningTokens: 0n,
              audioInTokens: 0n,
              audioOutTokens: 0n,
              imageInTokens: 0n,
              imageOutTokens: 0n,
              imageCount: images,
              imageSize: '1024x1024',
              callCount: 1,
              audioMs: 0n,
            },
            table,
            { accountRates: rates / 100, factor: factor / 100 },
            { InputText: 1, OutputText: 1, Call: 1 },
          );
          // USD × 1e4 = call + images × size; the two multipliers add 1e4, × 1e8 reaches the 1e16 scale
          const units = (BigInt(call) + BigInt(images * size)) * 100_000_000n;
          expect(priced.nanoUsd).toBe(referenceNano(units * BigInt(rates) * BigInt(factor)));
        },
      ),
      { numRuns: 300 },
    );
  });
});
