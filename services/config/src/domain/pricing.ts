import { invalid } from './invalid.js';

/**
 * PRICING override: at most 128 KB of JSON, at most 1024 model entries in all, known sections
 * and fields only, finite non-negative numbers only. Refusals name the field, e.g.
 * `PRICING.ChatPricing.gpt-4o.InputText`.
 */
export const PRICING_MAX_BYTES = 128 * 1024;
export const PRICING_MAX_ENTRIES = 1024;

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
] as const;

export const PRICING_SECTIONS: Record<string, readonly string[]> = {
  ChatPricing: CHAT_FIELDS,
  ImgPricing: ['Call', 'Rates', 'Sizes'],
  AudioPricing: ['Input', 'InputAudio', 'Output', 'OutputAudio', 'Call', 'Rates'],
  CallPricing: ['Call', 'Rates'],
  RerankPricing: ['Input', 'Call', 'Rates'],
  FineTuningPricing: ['InputText', 'OutputText', 'Rates'],
};

type Pricing = Record<string, Record<string, Record<string, number | Record<string, number>>>>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function price(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    invalid(field, 'must be a finite non-negative number');
  }
  return value;
}

export function validatePricing(text: string): Pricing {
  if (Buffer.byteLength(text, 'utf8') > PRICING_MAX_BYTES) {
    invalid('PRICING', 'is larger than 128 KB');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    invalid('PRICING', 'must be valid JSON');
  }
  if (!isPlainObject(raw)) {
    invalid('PRICING', 'must be a JSON object of pricing sections');
  }
  let entries = 0;
  const pricing: Pricing = {};
  for (const [section, models] of Object.entries(raw)) {
    const fields = PRICING_SECTIONS[section];
    if (!fields) {
      invalid(
        `PRICING.${section.slice(0, 64)}`,
        `is not a pricing section (${Object.keys(PRICING_SECTIONS).join(', ')})`,
      );
    }
    if (!isPlainObject(models)) {
      invalid(`PRICING.${section}`, 'must be an object of model to prices');
    }
    pricing[section] = {};
    for (const [model, prices] of Object.entries(models)) {
      entries += 1;
      if (entries > PRICING_MAX_ENTRIES) {
        invalid('PRICING', `has more than ${PRICING_MAX_ENTRIES} model entries`);
      }
      const at = `PRICING.${section}.${model.slice(0, 128)}`;
      if (model.trim() === '' || model.length > 256) {
        invalid(at, 'is not a model name');
      }
      if (!isPlainObject(prices)) {
        invalid(at, 'must be an object of prices');
      }
      const entry: Record<string, number | Record<string, number>> = {};
      for (const [name, value] of Object.entries(prices)) {
        const field = `${at}.${name.slice(0, 64)}`;
        if (!fields.includes(name)) {
          invalid(field, `is not a field of ${section}`);
        }
        if (name === 'Sizes') {
          if (!isPlainObject(value)) {
            invalid(field, 'must be an object of <W>x<H> to price');
          }
          const sizes: Record<string, number> = {};
          for (const [size, amount] of Object.entries(value)) {
            if (!/^\d{1,5}x\d{1,5}$/.test(size)) {
              invalid(`${field}.${size.slice(0, 32)}`, 'is not a <W>x<H> size');
            }
            sizes[size] = price(`${field}.${size}`, amount);
          }
          entry[name] = sizes;
        } else {
          entry[name] = price(field, value);
        }
      }
      pricing[section][model] = entry;
    }
  }
  return pricing;
}
