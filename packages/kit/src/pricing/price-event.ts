import type { events } from '@gw/proto';
import { ACCOUNT_BOUNDS } from '../account-bounds.js';
import { CompiledOnce } from '../compiled-once.js';
import { add, count, exact, mul, shift, toNanoHalfUp, ZERO, type Exact } from './exact.js';
import type { FallbackPrice } from './fallback.js';
import { findPriceEntry } from './lookup.js';
import type { ChatPricing, PriceTable, PricingSection } from './sections.js';

/**
 * The largest charge of one event, nano-USD: the largest movement of money (docs/decisions.md
 * §14). Billing sets aside an event priced above it rather than store or debit it.
 */
export const MAX_EVENT_CHARGE_NANO = BigInt(ACCOUNT_BOUNDS.maxUsd) * 1_000_000_000n;

/** The fields of a `gw.usage.recorded` event that its price depends on. */
export type PricedUsage = Pick<
  events.UsageRecorded,
  | 'modelServed'
  | 'modelRequested'
  | 'path'
  | 'promptTokens'
  | 'completionTokens'
  | 'cachedTokens'
  | 'cacheWriteTokens'
  | 'reasoningTokens'
  | 'audioInTokens'
  | 'audioOutTokens'
  | 'imageInTokens'
  | 'imageOutTokens'
  | 'imageCount'
  | 'imageSize'
  | 'callCount'
  | 'audioMs'
>;

/** The account's multipliers: its Rates attribute and its Factor attribute (both default 1). */
export interface AccountMultipliers {
  accountRates: number;
  factor: number;
}

export interface EventPrice {
  /** The charge, integer nano-USD, rounded once (half up). */
  nanoUsd: bigint;
  /** No table entry priced the model: charged at the fallback price. */
  fallback: boolean;
  /** The table entry used (`gpt-4o` for `gpt-4o-2024-08-06`), '' for the fallback. */
  pricedAs: string;
}

/** A charge before the account's multipliers: USD, already times the model's own Rates. */
interface Part {
  name: string;
  usd: Exact;
}

const none = (value: bigint | number) => (value > 0 ? BigInt(value) : 0n);
const perMillion = (tokens: bigint, price: number | undefined): Exact =>
  price === undefined || tokens === 0n ? ZERO : shift(mul(count(tokens), exact(price)), 6);
const perUnit = (units: bigint | number, price: number | undefined): Exact =>
  price === undefined ? ZERO : mul(count(none(units)), exact(price));
const withRates = (usd: Exact, rates: number | undefined): Exact => mul(usd, exact(rates ?? 1));
const sum = (...values: Exact[]): Exact => values.reduce(add, ZERO);

/** Takes `wanted` out of what is `left` of a total, never more than is left. */
function take(left: { tokens: bigint }, wanted: bigint | number): bigint {
  const taken = none(wanted) < left.tokens ? none(wanted) : left.tokens;
  left.tokens -= taken;
  return taken;
}

/**
 * Tokens at a chat-like entry, each token once: prompt_tokens holds the audio, image, cached and
 * cache-write input tokens, completion_tokens the audio, image and reasoning output tokens. Each
 * class is taken out of its total in that order (never more than is left), and what remains is
 * text. A class without its own price is charged at InputText (input) or OutputText (output).
 */
function chatTokens(usage: PricedUsage, price: ChatPricing): Exact {
  const input = { tokens: none(usage.promptTokens) };
  const inAudio = take(input, usage.audioInTokens);
  const inImage = take(input, usage.imageInTokens);
  const cached = take(input, usage.cachedTokens);
  const cacheWrite = take(input, usage.cacheWriteTokens);
  const output = { tokens: none(usage.completionTokens) };
  const outAudio = take(output, usage.audioOutTokens);
  const outImage = take(output, usage.imageOutTokens);
  const reasoning = take(output, usage.reasoningTokens);
  return sum(
    perMillion(input.tokens, price.InputText),
    perMillion(inAudio, price.InputAudio ?? price.InputText),
    perMillion(inImage, price.InputImage ?? price.InputText),
    perMillion(cached, price.CachedText ?? price.InputText),
    perMillion(cacheWrite, price.CacheWrite ?? price.InputText),
    perMillion(output.tokens, price.OutputText),
    perMillion(outAudio, price.OutputAudio ?? price.OutputText),
    perMillion(outImage, price.OutputImage ?? price.OutputText),
    perMillion(reasoning, price.ReasonText ?? price.OutputText),
    perUnit(usage.callCount, price.Call),
  );
}

type FoundEntry = ReturnType<typeof findPriceEntry> | null;

/**
 * Each table's lookups, remembered per section and model: a call is priced twice in the proxy and
 * once in billing, and a model a section lacks (every chat model in CallPricing) costs the whole
 * search, a regular expression and a pass over the section's names, each time. Bounded, as
 * CompiledOnce is, since the model asked for is the client's text.
 */
const lookups = new WeakMap<PriceTable, Map<PricingSection, CompiledOnce<FoundEntry>>>();

function find<S extends PricingSection>(
  table: PriceTable,
  section: S,
  model: string,
): { name: string; entry: PriceTable[S][string] } | undefined {
  let sections = lookups.get(table);
  if (sections === undefined) {
    sections = new Map();
    lookups.set(table, sections);
  }
  let memo = sections.get(section);
  if (memo === undefined) {
    memo = new CompiledOnce((name) => findPriceEntry(table, section, name) ?? null);
    sections.set(section, memo);
  }
  return (memo.get(model) ?? undefined) as { name: string; entry: PriceTable[S][string] } | undefined;
}

/** Images: Call per request plus the size's price per image, and tokens when the model has a chat entry. */
function imageParts(usage: PricedUsage, table: PriceTable, model: string): Part[] {
  const parts: Part[] = [];
  const img = find(table, 'ImgPricing', model);
  if (img) {
    const sizes = img.entry.Sizes ?? {};
    const size = usage.imageSize === '' ? '1024x1024' : usage.imageSize;
    // A size not listed costs the dearest listed size: never cheaper by asking for an odd size.
    const perImage = Object.hasOwn(sizes, size)
      ? sizes[size]
      : Object.values(sizes).reduce<number | undefined>(
          (max, v) => (max === undefined || v > max ? v : max),
          undefined,
        );
    const usd = add(perUnit(usage.callCount, img.entry.Call), perUnit(usage.imageCount, perImage));
    parts.push({ name: img.name, usd: withRates(usd, img.entry.Rates) });
  }
  const chat = find(table, 'ChatPricing', model);
  if (chat) {
    parts.push({ name: chat.name, usd: withRates(chatTokens(usage, chat.entry), chat.entry.Rates) });
  }
  return parts;
}

/** The charges a priced model makes on this call's path; none when the model is priced nowhere. */
function partsFor(usage: PricedUsage, table: PriceTable, model: string): Part[] {
  const perCall = find(table, 'CallPricing', model);
  if (perCall) {
    return [
      {
        name: perCall.name,
        usd: withRates(perUnit(usage.callCount, perCall.entry.Call), perCall.entry.Rates),
      },
    ];
  }
  if (usage.path.startsWith('/v1/images/')) {
    return imageParts(usage, table, model);
  }
  if (usage.path.startsWith('/v1/audio/')) {
    const audio = find(table, 'AudioPricing', model);
    if (!audio) {
      return [];
    }
    const { entry } = audio;
    const input = { tokens: none(usage.promptTokens) };
    const inAudio = take(input, usage.audioInTokens);
    const output = { tokens: none(usage.completionTokens) };
    const outAudio = take(output, usage.audioOutTokens);
    // A model priced by duration has no Input or Output token price (whisper-1); a token-priced
    // model's InputAudio is per audio token (gpt-4o-transcribe).
    const byDuration = entry.Input === undefined && entry.Output === undefined;
    // A token-priced model that heard audio and reported no audio tokens for it (a `text` answer):
    // 1 000 audio tokens a minute, rounded up, the rate at which OpenAI's per-minute estimates of
    // its token-priced transcription models (0.006 and 0.003 USD) meet their InputAudio prices.
    const heard = !byDuration && none(usage.audioInTokens) === 0n ? (none(usage.audioMs) + 59n) / 60n : 0n;
    const usd = sum(
      perMillion(input.tokens, entry.Input),
      perMillion(inAudio, entry.InputAudio),
      perMillion(heard, entry.InputAudio ?? entry.Input),
      perMillion(output.tokens, entry.Output),
      perMillion(outAudio, entry.OutputAudio),
      // Duration-metered audio: seconds (ms / 1000) at InputAudio per 1M seconds.
      !byDuration || entry.InputAudio === undefined
        ? ZERO
        : shift(mul(count(none(usage.audioMs)), exact(entry.InputAudio)), 9),
      perUnit(usage.callCount, entry.Call),
    );
    return [{ name: audio.name, usd: withRates(usd, entry.Rates) }];
  }
  if (usage.path === '/v1/rerank') {
    const rerank = find(table, 'RerankPricing', model);
    if (!rerank) {
      return [];
    }
    const usd = add(
      perMillion(none(usage.promptTokens), rerank.entry.Input),
      perUnit(usage.callCount, rerank.entry.Call),
    );
    return [{ name: rerank.name, usd: withRates(usd, rerank.entry.Rates) }];
  }
  if (model.startsWith('ft:')) {
    const base = model.slice(3).split(':')[0] ?? '';
    const tuned = find(table, 'FineTuningPricing', base);
    return tuned
      ? [{ name: `ft:${tuned.name}`, usd: withRates(chatTokens(usage, tuned.entry), tuned.entry.Rates) }]
      : [];
  }
  const chat = find(table, 'ChatPricing', model);
  return chat ? [{ name: chat.name, usd: withRates(chatTokens(usage, chat.entry), chat.entry.Rates) }] : [];
}

/**
 * The cost of one usage event: the merged price of the model the upstream served (or, when that
 * is priced nowhere, of the model the client asked for) × that model's Rates (from the price
 * table) × the account's Rates × the account's Factor, in nano-USD, rounded half up once on the
 * exact total. A model priced nowhere for the call's path is charged at `fallback` (its tokens
 * at InputText/OutputText, plus Call per call) and flagged.
 */
export function priceEvent(
  usage: PricedUsage,
  table: PriceTable,
  multipliers: AccountMultipliers,
  fallback: FallbackPrice,
): EventPrice {
  const account = mul(exact(multipliers.accountRates), exact(multipliers.factor));
  const charge = (usd: Exact) => toNanoHalfUp(mul(usd, account));
  for (const model of new Set([usage.modelServed, usage.modelRequested])) {
    const parts = model.trim() === '' ? [] : partsFor(usage, table, model);
    if (parts.length > 0) {
      return {
        nanoUsd: charge(sum(...parts.map((part) => part.usd))),
        fallback: false,
        pricedAs: parts.map((part) => part.name).join('+'),
      };
    }
  }
  return { nanoUsd: charge(chatTokens(usage, fallback)), fallback: true, pricedAs: '' };
}
