import {
  CompiledOnce,
  DEFAULT_FALLBACK_PRICE,
  DEFAULT_PRICES,
  mergePricing,
  priceEvent,
  type CallerSpend,
  type PriceTable,
  type PricedUsage,
} from '@gw/kit';
import type { OwnerPool } from './pool.js';
import type { ParsedRequest } from './request.js';
import { emptyUsage, type Usage } from './usage.js';

/** Each owner's merged price table, compiled once per distinct PRICING text. */
const ownerPrices = new CompiledOnce<PriceTable>((pricing) => {
  try {
    return mergePricing(DEFAULT_PRICES, pricing);
  } catch {
    // Config validates PRICING when it is saved; a stored value that no longer parses prices at
    // the defaults here, as billing would refuse to guess either.
    return DEFAULT_PRICES;
  }
});

/** What the estimate of an answer's length assumes when the request sets no maximum. */
export interface SpendSettings {
  /** Output tokens assumed for a call that sets no max_tokens. */
  estimateOutputTokens: number;
}

/** What a usage event costs on this pool's prices and the account's multipliers, in nano-USD. */
export function costOf(pool: OwnerPool, spend: CallerSpend, usage: PricedUsage): bigint {
  const price = priceEvent(
    usage,
    ownerPrices.get(pool.config.PRICING ?? ''),
    { accountRates: spend.rates, factor: spend.factor },
    DEFAULT_FALLBACK_PRICE,
  );
  return price.nanoUsd;
}

const positive = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;

/** JSON bytes per prompt token assumed: text averages about four, and JSON adds its own bytes. */
const BYTES_PER_TOKEN = 3;

/**
 * What a call may cost before it is made: its prompt counted from the size of its JSON body
 * (generously: three bytes a token), its answer from the largest length it asks for (`max_tokens`,
 * `max_completion_tokens`, `max_output_tokens`) or the setting, images from `n`, audio heard from
 * the upload's duration. Cheap: no tokenizer on the request path.
 */
export function estimatedUsage(request: ParsedRequest, settings: SpendSettings): Usage {
  const json = request.json ?? {};
  const output =
    positive(json.max_tokens) ??
    positive(json.max_completion_tokens) ??
    positive(json.max_output_tokens) ??
    settings.estimateOutputTokens;
  return {
    ...emptyUsage(),
    promptTokens: request.json ? Math.ceil(request.size / BYTES_PER_TOKEN) : 0,
    completionTokens: output,
    imageCount: request.endpoint.metering === 'images' ? (positive(json.n) ?? 1) : 0,
    audioMs: request.audioMs,
    reported: true,
  };
}
