import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from './default-prices.js';
import type { FallbackPrice } from './fallback.js';
import { mergePricing } from './merge.js';
import { priceEvent, type PricedUsage } from './price-event.js';

const FALLBACK: FallbackPrice = { InputText: 15, OutputText: 60, Call: 0.01 };
const ONE = { accountRates: 1, factor: 1 };

/** A usage event with only what a case names; everything else zero. */
function usage(fields: Partial<Record<keyof PricedUsage, string | number | bigint>>): PricedUsage {
  const big = (name: keyof PricedUsage) => BigInt(fields[name] ?? 0);
  return {
    modelServed: String(fields.modelServed ?? ''),
    modelRequested: String(fields.modelRequested ?? ''),
    path: String(fields.path ?? '/v1/chat/completions'),
    promptTokens: big('promptTokens'),
    completionTokens: big('completionTokens'),
    cachedTokens: big('cachedTokens'),
    cacheWriteTokens: big('cacheWriteTokens'),
    reasoningTokens: big('reasoningTokens'),
    audioInTokens: big('audioInTokens'),
    audioOutTokens: big('audioOutTokens'),
    imageInTokens: big('imageInTokens'),
    imageOutTokens: big('imageOutTokens'),
    imageCount: Number(fields.imageCount ?? 0),
    imageSize: String(fields.imageSize ?? ''),
    callCount: Number(fields.callCount ?? 1),
    audioMs: big('audioMs'),
  };
}

// Each expected value is worked by hand: tokens × USD per 1M × 1000 = nano-USD.
describe('priceEvent on the default prices', () => {
  it.each([
    // 600 text × 2.5 + 400 cached × 1.25 + 200 out × 10, ×1000
    [
      'chat, cached tokens at CachedText only',
      { modelServed: 'gpt-4o-2024-08-06', promptTokens: 1000, cachedTokens: 400, completionTokens: 200 },
      4_000_000n,
      'gpt-4o',
    ],
    // 100 × 1.1 + 1000 out × 4.4 (reasoning at OutputText: no ReasonText)
    [
      'reasoning tokens inside completion, once',
      { modelServed: 'o4-mini', promptTokens: 100, completionTokens: 1000, reasoningTokens: 800 },
      4_510_000n,
      'o4-mini',
    ],
    // 400 text × 5 + 600 audio × 40 + 100 text out × 20 + 400 audio out × 80
    [
      'realtime audio tokens apart from text',
      {
        modelServed: 'gpt-4o-realtime-preview-2024-12-17',
        path: '/v1/realtime',
        promptTokens: 1000,
        audioInTokens: 600,
        completionTokens: 500,
        audioOutTokens: 400,
      },
      60_000_000n,
      'gpt-4o-realtime-preview',
    ],
    // 1000 text × 3 + 1000 cached × 0.3 + 1000 written × 3.75 + 100 × 15
    [
      'cache reads and writes',
      {
        modelServed: 'claude-3-5-sonnet-20241022',
        promptTokens: 3000,
        cachedTokens: 1000,
        cacheWriteTokens: 1000,
        completionTokens: 100,
      },
      8_550_000n,
      'claude-3-5-sonnet',
    ],
    // 1000 text × 5 + 100 out × 25: its own entry, not claude-opus-4's by prefix (15 and 75)
    [
      'a 2026 Claude model at its own price',
      { modelServed: 'claude-opus-4-6', promptTokens: 1000, completionTokens: 100 },
      7_500_000n,
      'claude-opus-4-6',
    ],
    [
      'embeddings',
      { modelServed: 'text-embedding-3-small', path: '/v1/embeddings', promptTokens: 1234 },
      24_680n,
      'text-embedding-3-small',
    ],
    // 2 images × 0.08
    [
      'images by size',
      { modelServed: 'dall-e-3', path: '/v1/images/generations', imageCount: 2, imageSize: '1024x1792' },
      160_000_000n,
      'dall-e-3',
    ],
    [
      'images without a size at 1024x1024',
      { modelServed: 'dall-e-3', path: '/v1/images/generations', imageCount: 1 },
      40_000_000n,
      'dall-e-3',
    ],
    [
      'images of an unlisted size at the dearest size',
      { modelServed: 'dall-e-2', path: '/v1/images/generations', imageCount: 1, imageSize: '2048x2048' },
      20_000_000n,
      'dall-e-2',
    ],
    // 50 × 5 + 4160 image tokens out × 40
    [
      'gpt-image-1 by tokens',
      {
        modelServed: 'gpt-image-1',
        path: '/v1/images/generations',
        imageCount: 1,
        promptTokens: 50,
        completionTokens: 4160,
      },
      166_650_000n,
      'gpt-image-1',
    ],
    // 90 s × 100 USD per 1M seconds
    [
      'transcription by duration',
      { modelServed: 'whisper-1', path: '/v1/audio/transcriptions', audioMs: 90_000 },
      9_000_000n,
      'whisper-1',
    ],
    // 100 text × 2.5 + 900 audio × 6 + 100 out × 10
    [
      'transcription by tokens',
      {
        modelServed: 'gpt-4o-transcribe',
        path: '/v1/audio/transcriptions',
        promptTokens: 1000,
        audioInTokens: 900,
        completionTokens: 100,
      },
      6_650_000n,
      'gpt-4o-transcribe',
    ],
    // A token-priced model's InputAudio is per token: a minute heard without reported audio tokens
    // is 1 000 of them: 100 text × 2.5 + 1 000 audio × 6 + 100 out × 10 (0.00725 USD).
    [
      'a token-priced transcription with a duration only',
      {
        modelServed: 'gpt-4o-transcribe',
        path: '/v1/audio/transcriptions',
        audioMs: 60_000,
        promptTokens: 100,
        completionTokens: 100,
      },
      7_250_000n,
      'gpt-4o-transcribe',
    ],
    // Reported audio tokens win over the duration: 100 text × 2.5 + 900 audio × 6 + 100 out × 10.
    [
      'a token-priced transcription with its audio tokens and a duration',
      {
        modelServed: 'gpt-4o-transcribe',
        path: '/v1/audio/transcriptions',
        audioMs: 60_000,
        promptTokens: 1000,
        audioInTokens: 900,
        completionTokens: 100,
      },
      6_650_000n,
      'gpt-4o-transcribe',
    ],
    [
      'speech by input tokens',
      { modelServed: 'tts-1', path: '/v1/audio/speech', promptTokens: 1000 },
      60_000_000n,
      'tts-1',
    ],
    [
      'rerank per search',
      { modelServed: 'rerank-v3.5', path: '/v1/rerank', promptTokens: 5000 },
      2_000_000n,
      'rerank-v3.5',
    ],
    [
      'rerank per token',
      { modelServed: 'jina-reranker-v2-base-multilingual', path: '/v1/rerank', promptTokens: 10_000 },
      500_000n,
      'jina-reranker-v2-base-multilingual',
    ],
    [
      'moderation is free',
      { modelServed: 'omni-moderation-latest', path: '/v1/moderations', promptTokens: 1000 },
      0n,
      'omni-moderation',
    ],
    // 1000 × 0.3 + 1000 × 1.2
    [
      'a fine-tuned model at its base',
      { modelServed: 'ft:gpt-4o-mini-2024-07-18:org::abc123', promptTokens: 1000, completionTokens: 1000 },
      1_500_000n,
      'ft:gpt-4o-mini',
    ],
    [
      'a served model priced nowhere at the requested one',
      { modelServed: 'my-deployment', modelRequested: 'gpt-4o', promptTokens: 1000 },
      2_500_000n,
      'gpt-4o',
    ],
    [
      'cached tokens beyond the prompt are capped at it',
      { modelServed: 'gpt-4o', promptTokens: 100, cachedTokens: 500 },
      125_000n,
      'gpt-4o',
    ],
  ] as const)('%s', (_, fields, nanoUsd, pricedAs) => {
    expect(priceEvent(usage(fields), DEFAULT_PRICES, ONE, FALLBACK)).toEqual({
      nanoUsd,
      fallback: false,
      pricedAs,
    });
  });
});

describe('priceEvent with an owner override', () => {
  it.each([
    // 100 × 1.1 + 800 reasoning × 5 + 200 × 4.4
    [
      'ReasonText prices reasoning apart',
      '{"ChatPricing":{"o4-mini":{"ReasonText":5}}}',
      { modelServed: 'o4-mini', promptTokens: 100, completionTokens: 1000, reasoningTokens: 800 },
      4_990_000n,
    ],
    [
      'a chat Call fee per call',
      '{"ChatPricing":{"gpt-4o":{"Call":0.001}}}',
      { modelServed: 'gpt-4o' },
      1_000_000n,
    ],
    [
      'CallPricing charges per call only',
      '{"CallPricing":{"search":{"Call":0.01}}}',
      { modelServed: 'search', promptTokens: 1_000_000 },
      10_000_000n,
    ],
    [
      'an image Call fee and size',
      '{"ImgPricing":{"dall-e-3":{"Call":0.01,"Sizes":{"1024x1024":0.05}}}}',
      { modelServed: 'dall-e-3', path: '/v1/images/generations', imageCount: 2 },
      110_000_000n,
    ],
    [
      'rerank Input and Call',
      '{"RerankPricing":{"rerank-v3.5":{"Input":1}}}',
      { modelServed: 'rerank-v3.5', path: '/v1/rerank', promptTokens: 1000 },
      3_000_000n,
    ],
    [
      'an audio Call fee',
      '{"AudioPricing":{"tts-1":{"Call":0.002}}}',
      { modelServed: 'tts-1', path: '/v1/audio/speech', promptTokens: 1000 },
      62_000_000n,
    ],
    [
      'the model Rates',
      '{"ChatPricing":{"gpt-4o":{"Rates":1.5}}}',
      { modelServed: 'gpt-4o', promptTokens: 1000 },
      3_750_000n,
    ],
    [
      'an image input token price',
      '{"ChatPricing":{"gpt-4o":{"InputImage":5}}}',
      { modelServed: 'gpt-4o', promptTokens: 1000, imageInTokens: 200 },
      3_000_000n,
    ],
  ] as const)('%s', (_, pricing, fields, nanoUsd) => {
    const table = mergePricing(DEFAULT_PRICES, pricing);
    expect(priceEvent(usage(fields), table, ONE, FALLBACK).nanoUsd).toBe(nanoUsd);
  });
});

describe('priceEvent multipliers and rounding', () => {
  it('multiplies the model Rates, the account Rates and the Factor exactly', () => {
    const table = mergePricing(DEFAULT_PRICES, '{"ChatPricing":{"gpt-4o":{"Rates":1.5}}}');
    // 2 500 000 × 1.5 × 2 × 0.1
    const priced = priceEvent(
      usage({ modelServed: 'gpt-4o', promptTokens: 1000 }),
      table,
      { accountRates: 2, factor: 0.1 },
      FALLBACK,
    );
    expect(priced.nanoUsd).toBe(750_000n);
  });

  it.each([
    ['0.1 × 3 tokens stays exact', { InputText: 0.1 }, { promptTokens: 3 }, 1, 300n],
    ['0.3 × rates 3 stays exact', { InputText: 0.3 }, { promptTokens: 1 }, 3, 900n],
    ['a half nano rounds up', { InputText: 0.0015 }, { promptTokens: 1 }, 1, 2n],
    ['less than a half rounds down', { InputText: 0.0014 }, { promptTokens: 1 }, 1, 1n],
    [
      'two halves are rounded once, as one',
      { InputText: 0.0005, OutputText: 0.0005 },
      { promptTokens: 1, completionTokens: 1 },
      1,
      1n,
    ],
  ] as const)('%s', (_, prices, fields, rates, nanoUsd) => {
    const table = mergePricing(DEFAULT_PRICES, { ChatPricing: { m: prices } });
    const priced = priceEvent(
      usage({ modelServed: 'm', ...fields }),
      table,
      { accountRates: rates, factor: 1 },
      FALLBACK,
    );
    expect(priced.nanoUsd).toBe(nanoUsd);
  });
});

describe('priceEvent fallback', () => {
  it('charges a model priced nowhere at the fallback, flagged', () => {
    // 1000 × 15 + 1000 × 60 + 0.01 per call
    const priced = priceEvent(
      usage({
        modelServed: 'mystery',
        modelRequested: 'mystery',
        promptTokens: 1000,
        completionTokens: 1000,
      }),
      DEFAULT_PRICES,
      ONE,
      FALLBACK,
    );
    expect(priced).toEqual({ nanoUsd: 85_000_000n, fallback: true, pricedAs: '' });
  });

  it('charges a model priced only in another section at the fallback', () => {
    const priced = priceEvent(
      usage({ modelServed: 'gpt-4o', path: '/v1/images/generations', imageCount: 1 }),
      mergePricing(DEFAULT_PRICES, '{"ChatPricing":{"gpt-4o":{"InputText":0,"OutputText":0}}}'),
      ONE,
      FALLBACK,
    );
    expect(priced).toMatchObject({ nanoUsd: 0n, fallback: false });
    const speech = priceEvent(
      usage({ modelServed: 'gpt-4o', path: '/v1/audio/speech', promptTokens: 10 }),
      DEFAULT_PRICES,
      ONE,
      FALLBACK,
    );
    // 10 × 15 + 0.01
    expect(speech).toEqual({ nanoUsd: 10_150_000n, fallback: true, pricedAs: '' });
  });

  it('applies the account multipliers to the fallback', () => {
    const priced = priceEvent(
      usage({ modelServed: 'mystery' }),
      DEFAULT_PRICES,
      { accountRates: 2, factor: 1.5 },
      FALLBACK,
    );
    expect(priced).toEqual({ nanoUsd: 30_000_000n, fallback: true, pricedAs: '' });
  });
});
