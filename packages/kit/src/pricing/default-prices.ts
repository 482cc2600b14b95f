import type {
  AudioPricing,
  CallPricing,
  ChatPricing,
  FineTuningPricing,
  ImgPricing,
  PriceTable,
  RerankPricing,
} from './sections.js';

/**
 * The system default prices, reviewed like code. Each model names the page its prices were read
 * from and when (`read`: the month the prices were last checked against that page). Units are
 * those of the sections (sections.ts, docs/pricing.md); a price left out falls back as
 * price-event.ts says. Tiered prices (Gemini above 200k/128k prompt tokens, Anthropic's 1-hour
 * cache writes, OpenAI's batch and flex tiers) are not modelled: the standard tier is charged.
 *
 * Conversions from a provider's own unit, written next to the entry:
 * - per character (tts-1): the proxy counts a speech input in tokens, so the price per 1M
 *   characters × 4 (characters per token) is the price per 1M tokens;
 * - per minute of audio (whisper-1): the upstream reports seconds, charged at InputAudio per 1M
 *   seconds, so the per-minute price × 1e6 / 60;
 * - per 1 000 searches (Cohere rerank): Call = the price / 1 000.
 */

export interface DefaultModel {
  id: string;
  provider: 'openai' | 'anthropic' | 'google' | 'cohere' | 'jina';
  /** Tokens; 0 when the provider states no window in tokens (DALL·E limits prompt characters). */
  context_window: number;
  /** 0 for models that generate no tokens (embeddings, rerankers, moderation, images by size). */
  max_output_tokens: number;
  source: string;
  read: string;
  ChatPricing?: ChatPricing;
  ImgPricing?: ImgPricing;
  AudioPricing?: AudioPricing;
  CallPricing?: CallPricing;
  RerankPricing?: RerankPricing;
  FineTuningPricing?: FineTuningPricing;
}

const OPENAI = 'https://platform.openai.com/docs/pricing';
const ANTHROPIC = 'https://docs.anthropic.com/en/docs/about-claude/pricing';
/** Anthropic's pricing page at its current address, where the 2026 models are listed. */
const ANTHROPIC_2026 = 'https://platform.claude.com/docs/en/about-claude/pricing';
const GOOGLE = 'https://ai.google.dev/gemini-api/docs/pricing';
const READ = '2025-11';

function openai(
  id: string,
  window: number,
  output: number,
  prices: Omit<DefaultModel, 'id' | 'provider' | 'context_window' | 'max_output_tokens' | 'source' | 'read'>,
): DefaultModel {
  return {
    id,
    provider: 'openai',
    context_window: window,
    max_output_tokens: output,
    source: OPENAI,
    read: READ,
    ...prices,
  };
}

/** Anthropic: cache writes are the 5-minute ones (1.25 × input), cache reads 0.1 × input. */
function claude(id: string, maxOutput: number, prices: ChatPricing): DefaultModel {
  return {
    id,
    provider: 'anthropic',
    context_window: 200_000,
    max_output_tokens: maxOutput,
    source: ANTHROPIC,
    read: READ,
    ChatPricing: prices,
  };
}

/**
 * Anthropic's 2026 models (1M-token window, 128K output, per each model's overview page), priced
 * from the current pricing page; the same cache rules, except where the page gives its own
 * cache-hit price (Fable 5.1).
 */
function claude2026(id: string, prices: ChatPricing): DefaultModel {
  return {
    ...claude(id, 128_000, prices),
    context_window: 1_000_000,
    source: ANTHROPIC_2026,
    read: '2026-11',
  };
}

function gemini(id: string, window: number, maxOutput: number, prices: ChatPricing): DefaultModel {
  return {
    id,
    provider: 'google',
    context_window: window,
    max_output_tokens: maxOutput,
    source: GOOGLE,
    read: READ,
    ChatPricing: prices,
  };
}

const FREE: ChatPricing = { InputText: 0, OutputText: 0 };

export const DEFAULT_MODELS: readonly DefaultModel[] = [
  // OpenAI chat; FineTuningPricing prices the use of a model fine-tuned from this base.
  openai('gpt-4o', 128_000, 16_384, {
    ChatPricing: { InputText: 2.5, CachedText: 1.25, OutputText: 10 },
    FineTuningPricing: { InputText: 3.75, OutputText: 15 },
  }),
  openai('gpt-4o-mini', 128_000, 16_384, {
    ChatPricing: { InputText: 0.15, CachedText: 0.075, OutputText: 0.6 },
    FineTuningPricing: { InputText: 0.3, OutputText: 1.2 },
  }),
  openai('gpt-4.1', 1_047_576, 32_768, {
    ChatPricing: { InputText: 2, CachedText: 0.5, OutputText: 8 },
    FineTuningPricing: { InputText: 3, OutputText: 12 },
  }),
  openai('gpt-4.1-mini', 1_047_576, 32_768, {
    ChatPricing: { InputText: 0.4, CachedText: 0.1, OutputText: 1.6 },
    FineTuningPricing: { InputText: 0.8, OutputText: 3.2 },
  }),
  openai('gpt-4.1-nano', 1_047_576, 32_768, {
    ChatPricing: { InputText: 0.1, CachedText: 0.025, OutputText: 0.4 },
    FineTuningPricing: { InputText: 0.2, OutputText: 0.8 },
  }),
  openai('gpt-5', 400_000, 128_000, { ChatPricing: { InputText: 1.25, CachedText: 0.125, OutputText: 10 } }),
  openai('gpt-5-mini', 400_000, 128_000, {
    ChatPricing: { InputText: 0.25, CachedText: 0.025, OutputText: 2 },
  }),
  openai('gpt-5-nano', 400_000, 128_000, {
    ChatPricing: { InputText: 0.05, CachedText: 0.005, OutputText: 0.4 },
  }),
  // OpenAI reasoning: reasoning tokens are output tokens (ReasonText left out = OutputText).
  openai('o1', 200_000, 100_000, { ChatPricing: { InputText: 15, CachedText: 7.5, OutputText: 60 } }),
  openai('o1-mini', 128_000, 65_536, { ChatPricing: { InputText: 1.1, CachedText: 0.55, OutputText: 4.4 } }),
  openai('o3', 200_000, 100_000, { ChatPricing: { InputText: 2, CachedText: 0.5, OutputText: 8 } }),
  openai('o3-mini', 200_000, 100_000, { ChatPricing: { InputText: 1.1, CachedText: 0.55, OutputText: 4.4 } }),
  openai('o4-mini', 200_000, 100_000, {
    ChatPricing: { InputText: 1.1, CachedText: 0.275, OutputText: 4.4 },
  }),
  // OpenAI completions (`/v1/completions`), the legacy models still served; FineTuningPricing as for chat.
  openai('gpt-3.5-turbo-instruct', 4_096, 4_096, { ChatPricing: { InputText: 1.5, OutputText: 2 } }),
  openai('davinci-002', 16_384, 16_384, {
    ChatPricing: { InputText: 2, OutputText: 2 },
    FineTuningPricing: { InputText: 12, OutputText: 12 },
  }),
  openai('babbage-002', 16_384, 16_384, {
    ChatPricing: { InputText: 0.4, OutputText: 0.4 },
    FineTuningPricing: { InputText: 1.6, OutputText: 1.6 },
  }),
  // OpenAI audio in chat and realtime (audio token-equivalents priced apart from text).
  openai('gpt-4o-audio-preview', 128_000, 16_384, {
    ChatPricing: { InputText: 2.5, OutputText: 10, InputAudio: 40, OutputAudio: 80 },
  }),
  openai('gpt-4o-realtime-preview', 128_000, 4_096, {
    ChatPricing: {
      InputText: 5,
      CachedText: 2.5,
      OutputText: 20,
      InputAudio: 40,
      CachedAudio: 2.5,
      OutputAudio: 80,
    },
  }),
  openai('gpt-4o-mini-realtime-preview', 128_000, 4_096, {
    ChatPricing: {
      InputText: 0.6,
      CachedText: 0.3,
      OutputText: 2.4,
      InputAudio: 10,
      CachedAudio: 0.3,
      OutputAudio: 20,
    },
  }),
  openai('gpt-realtime', 32_000, 4_096, {
    ChatPricing: {
      InputText: 4,
      CachedText: 0.4,
      OutputText: 16,
      InputAudio: 32,
      CachedAudio: 0.4,
      OutputAudio: 64,
    },
  }),
  // OpenAI embeddings: input only.
  openai('text-embedding-3-small', 8_191, 0, { ChatPricing: { InputText: 0.02 } }),
  openai('text-embedding-3-large', 8_191, 0, { ChatPricing: { InputText: 0.13 } }),
  openai('text-embedding-ada-002', 8_191, 0, { ChatPricing: { InputText: 0.1 } }),
  // OpenAI images: dall-e by size (standard quality); gpt-image-1 by tokens (its output is image tokens).
  openai('dall-e-2', 0, 0, {
    ImgPricing: { Sizes: { '256x256': 0.016, '512x512': 0.018, '1024x1024': 0.02 } },
  }),
  openai('dall-e-3', 0, 0, {
    ImgPricing: { Sizes: { '1024x1024': 0.04, '1024x1792': 0.08, '1792x1024': 0.08 } },
  }),
  openai('gpt-image-1', 32_000, 0, {
    ChatPricing: { InputText: 5, CachedText: 1.25, InputImage: 10, OutputText: 40, OutputImage: 40 },
  }),
  // OpenAI speech and transcription.
  openai('tts-1', 4_096, 0, { AudioPricing: { Input: 60 } }), // 15 USD per 1M characters × 4
  openai('tts-1-hd', 4_096, 0, { AudioPricing: { Input: 120 } }), // 30 USD per 1M characters × 4
  openai('gpt-4o-mini-tts', 2_000, 0, { AudioPricing: { Input: 0.6, OutputAudio: 12 } }),
  openai('whisper-1', 0, 0, { AudioPricing: { InputAudio: 100 } }), // 0.006 USD per minute × 1e6 / 60
  openai('gpt-4o-transcribe', 16_000, 2_000, { AudioPricing: { Input: 2.5, InputAudio: 6, Output: 10 } }),
  openai('gpt-4o-mini-transcribe', 16_000, 2_000, {
    AudioPricing: { Input: 1.25, InputAudio: 3, Output: 5 },
  }),
  // OpenAI moderation: free, priced so that it is never charged the fallback.
  openai('omni-moderation', 32_768, 0, { ChatPricing: FREE }),
  openai('text-moderation', 32_768, 0, { ChatPricing: FREE }),

  // Anthropic.
  claude('claude-3-haiku', 4_096, { InputText: 0.25, CacheWrite: 0.3, CachedText: 0.03, OutputText: 1.25 }),
  claude('claude-3-5-haiku', 8_192, { InputText: 0.8, CacheWrite: 1, CachedText: 0.08, OutputText: 4 }),
  claude('claude-haiku-4-5', 64_000, { InputText: 1, CacheWrite: 1.25, CachedText: 0.1, OutputText: 5 }),
  claude('claude-3-5-sonnet', 8_192, { InputText: 3, CacheWrite: 3.75, CachedText: 0.3, OutputText: 15 }),
  claude('claude-3-7-sonnet', 64_000, { InputText: 3, CacheWrite: 3.75, CachedText: 0.3, OutputText: 15 }),
  claude('claude-sonnet-4', 64_000, { InputText: 3, CacheWrite: 3.75, CachedText: 0.3, OutputText: 15 }),
  claude('claude-sonnet-4-5', 64_000, { InputText: 3, CacheWrite: 3.75, CachedText: 0.3, OutputText: 15 }),
  claude('claude-3-opus', 4_096, { InputText: 15, CacheWrite: 18.75, CachedText: 1.5, OutputText: 75 }),
  claude('claude-opus-4', 32_000, { InputText: 15, CacheWrite: 18.75, CachedText: 1.5, OutputText: 75 }),
  claude('claude-opus-4-1', 32_000, { InputText: 15, CacheWrite: 18.75, CachedText: 1.5, OutputText: 75 }),
  claude('claude-opus-4-5', 64_000, { InputText: 5, CacheWrite: 6.25, CachedText: 0.5, OutputText: 25 }),
  // Without their own entries these would be priced by prefix as claude-opus-4 (3 × the price).
  claude2026('claude-opus-4-6', { InputText: 5, CacheWrite: 6.25, CachedText: 0.5, OutputText: 25 }),
  claude2026('claude-opus-4-7', { InputText: 5, CacheWrite: 6.25, CachedText: 0.5, OutputText: 25 }),
  claude2026('claude-opus-4-8', { InputText: 5, CacheWrite: 6.25, CachedText: 0.5, OutputText: 25 }),
  claude2026('claude-opus-5', { InputText: 5, CacheWrite: 6.25, CachedText: 0.5, OutputText: 25 }),
  claude2026('claude-sonnet-4-6', { InputText: 3, CacheWrite: 3.75, CachedText: 0.3, OutputText: 15 }),
  claude2026('claude-fable-5', { InputText: 10, CacheWrite: 12.5, CachedText: 1, OutputText: 50 }),
  claude2026('claude-fable-5-1', { InputText: 10, CacheWrite: 12.5, CachedText: 0.25, OutputText: 50 }),

  // Google (prompts up to 128k tokens for 1.5, 200k for 2.5 pro).
  gemini('gemini-1.5-flash', 1_048_576, 8_192, { InputText: 0.075, CachedText: 0.01875, OutputText: 0.3 }),
  gemini('gemini-1.5-pro', 2_097_152, 8_192, { InputText: 1.25, CachedText: 0.3125, OutputText: 5 }),
  gemini('gemini-2.0-flash', 1_048_576, 8_192, {
    InputText: 0.1,
    CachedText: 0.025,
    InputAudio: 0.7,
    OutputText: 0.4,
  }),
  gemini('gemini-2.0-flash-lite', 1_048_576, 8_192, { InputText: 0.075, OutputText: 0.3 }),
  gemini('gemini-2.5-flash', 1_048_576, 65_536, {
    InputText: 0.3,
    CachedText: 0.075,
    InputAudio: 1,
    OutputText: 2.5,
  }),
  gemini('gemini-2.5-flash-lite', 1_048_576, 65_536, {
    InputText: 0.1,
    CachedText: 0.025,
    InputAudio: 0.3,
    OutputText: 0.4,
  }),
  gemini('gemini-2.5-pro', 1_048_576, 65_536, { InputText: 1.25, CachedText: 0.31, OutputText: 10 }),

  // Rerankers.
  {
    id: 'rerank-v3.5',
    provider: 'cohere',
    context_window: 4_096,
    max_output_tokens: 0,
    source: 'https://cohere.com/pricing',
    read: READ,
    RerankPricing: { Call: 0.002 }, // 2 USD per 1 000 searches
  },
  {
    id: 'jina-reranker-v2-base-multilingual',
    provider: 'jina',
    context_window: 1_024,
    max_output_tokens: 0,
    source: 'https://jina.ai/reranker/',
    read: READ,
    RerankPricing: { Input: 0.05 }, // the paid token package: 50 USD per 1B tokens
  },
];

const SECTIONS = [
  'ChatPricing',
  'ImgPricing',
  'AudioPricing',
  'CallPricing',
  'RerankPricing',
  'FineTuningPricing',
] as const;

/** DEFAULT_MODELS as a price table: what every owner's PRICING merges over. */
export const DEFAULT_PRICES: PriceTable = Object.fromEntries(
  SECTIONS.map((section) => [
    section,
    Object.fromEntries(
      DEFAULT_MODELS.flatMap((model) => (model[section] ? [[model.id, model[section]]] : [])),
    ),
  ]),
) as unknown as PriceTable;
