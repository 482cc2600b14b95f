/**
 * The sections and fields of a price table: the system defaults and an owner's PRICING override
 * have this one shape. Units (docs/pricing.md):
 * - InputText, OutputText, CachedText, CacheWrite, ReasonText: USD per 1M tokens;
 * - InputAudio, OutputAudio, InputImage, OutputImage, CachedAudio: USD per 1M token-equivalents;
 * - AudioPricing Input, Output, InputAudio, OutputAudio and RerankPricing Input: USD per 1M tokens
 *   (AudioPricing InputAudio of a model metered by duration: USD per 1M seconds of audio);
 * - Call: USD per request; Page: USD per page; Sizes: USD per image; SizeHigh, SizeMedium,
 *   SizeLow, Find, Query: USD;
 * - Rates: the model's multiplier, default 1.
 */

export interface ChatPricing {
  CacheWrite?: number;
  CachedText?: number;
  CachedAudio?: number;
  InputText?: number;
  InputAudio?: number;
  InputImage?: number;
  ReasonText?: number;
  OutputText?: number;
  OutputAudio?: number;
  OutputImage?: number;
  Rates?: number;
  Call?: number;
  SizeHigh?: number;
  SizeMedium?: number;
  SizeLow?: number;
  Find?: number;
  Query?: number;
  Page?: number;
}

export interface ImgPricing {
  Call?: number;
  Rates?: number;
  /** `<W>x<H>` → USD per image. */
  Sizes?: Record<string, number>;
}

export interface AudioPricing {
  Input?: number;
  InputAudio?: number;
  Output?: number;
  OutputAudio?: number;
  Call?: number;
  Rates?: number;
}

export interface CallPricing {
  Call?: number;
  Rates?: number;
}

export interface RerankPricing {
  Input?: number;
  Call?: number;
  Rates?: number;
}

/** Keyed by the base model; prices the use of a model fine-tuned from it (`ft:<base>:…`). */
export interface FineTuningPricing {
  InputText?: number;
  OutputText?: number;
  Rates?: number;
}

/** A whole price table: section → model → prices. */
export interface PriceTable {
  ChatPricing: Record<string, ChatPricing>;
  ImgPricing: Record<string, ImgPricing>;
  AudioPricing: Record<string, AudioPricing>;
  CallPricing: Record<string, CallPricing>;
  RerankPricing: Record<string, RerankPricing>;
  FineTuningPricing: Record<string, FineTuningPricing>;
}

export type PricingSection = keyof PriceTable;

/** An owner's PRICING: only the deltas, any section may be missing. */
export type PricingOverride = Partial<PriceTable>;

const CHAT_FIELDS = [
  'CacheWrite',
  'CachedText',
  'CachedAudio',
  'InputText',
  'InputAudio',
  'InputImage',
  'ReasonText',
  'OutputText',
  'OutputAudio',
  'OutputImage',
  'Rates',
  'Call',
  'SizeHigh',
  'SizeMedium',
  'SizeLow',
  'Find',
  'Query',
  'Page',
] as const satisfies readonly (keyof ChatPricing)[];

/** The known fields of each section; anything else in a PRICING override is refused. */
export const PRICING_SECTIONS = {
  ChatPricing: CHAT_FIELDS,
  ImgPricing: ['Call', 'Rates', 'Sizes'],
  AudioPricing: ['Input', 'InputAudio', 'Output', 'OutputAudio', 'Call', 'Rates'],
  CallPricing: ['Call', 'Rates'],
  RerankPricing: ['Input', 'Call', 'Rates'],
  FineTuningPricing: ['InputText', 'OutputText', 'Rates'],
} as const satisfies { [S in PricingSection]: readonly (keyof PriceTable[S])[] };

export const PRICING_SECTION_NAMES = Object.keys(PRICING_SECTIONS) as PricingSection[];

export function isPricingSection(name: string): name is PricingSection {
  return Object.hasOwn(PRICING_SECTIONS, name);
}

/** A table with every section present and empty. */
export function emptyPriceTable(): PriceTable {
  return {
    ChatPricing: {},
    ImgPricing: {},
    AudioPricing: {},
    CallPricing: {},
    RerankPricing: {},
    FineTuningPricing: {},
  };
}
