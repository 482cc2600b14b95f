import { AppError, ErrorCode, excerpt } from '../errors.js';
import {
  isPricingSection,
  PRICING_SECTION_NAMES,
  PRICING_SECTIONS,
  type PricingOverride,
} from './sections.js';

/**
 * An owner's PRICING text, checked: at most 128 KB of JSON, at most 1024 model entries in all,
 * known sections and fields only, numbers from 0 to PRICING_MAX_PRICE only (a price per unit, per
 * 1M tokens or per call, and a Rates multiplier alike). Config checks it when the
 * owner saves it; billing reads the stored (already checked) text with the same function. A
 * refusal is a 400 naming the field, e.g. `PRICING.ChatPricing.gpt-4o.InputText`.
 */
export const PRICING_MAX_BYTES = 128 * 1024;
export const PRICING_MAX_ENTRIES = 1024;
/** The largest number PRICING takes: one million USD per unit (docs/pricing.md). */
export const PRICING_MAX_PRICE = 1_000_000;

const SIZE = /^\d{1,5}x\d{1,5}$/;

/** Field names and reasons can carry what the owner sent: each is quoted as a short excerpt. */
function invalid(field: string, reason: string): never {
  const named = excerpt(field, 100);
  throw new AppError(ErrorCode.InvalidRequest, `${named}: ${excerpt(reason, 300)}`, { field: named });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function price(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > PRICING_MAX_PRICE) {
    invalid(field, `must be a number from 0 to ${PRICING_MAX_PRICE}`);
  }
  return value;
}

function sizes(field: string, value: unknown): Record<string, number> {
  if (!isPlainObject(value)) {
    invalid(field, 'must be an object of <W>x<H> to price');
  }
  return Object.fromEntries(
    Object.entries(value).map(([size, amount]) => {
      if (!SIZE.test(size)) {
        invalid(`${field}.${size.slice(0, 32)}`, 'is not a <W>x<H> size');
      }
      return [size, price(`${field}.${size}`, amount)];
    }),
  );
}

function prices(at: string, allowed: readonly string[], section: string, value: unknown) {
  if (!isPlainObject(value)) {
    invalid(at, 'must be an object of prices');
  }
  return Object.fromEntries(
    Object.entries(value).map(([name, amount]) => {
      const field = `${at}.${name.slice(0, 64)}`;
      if (!allowed.includes(name)) {
        invalid(field, `is not a field of ${section}`);
      }
      return [name, name === 'Sizes' ? sizes(field, amount) : price(field, amount)];
    }),
  );
}

/** Parses and checks a PRICING text; an empty text is no override. */
export function parsePricingOverride(text: string): PricingOverride {
  if (text.trim() === '') {
    return {};
  }
  if (new TextEncoder().encode(text).length > PRICING_MAX_BYTES) {
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
  const override: Record<string, unknown> = {};
  for (const [section, models] of Object.entries(raw)) {
    if (!isPricingSection(section)) {
      invalid(
        `PRICING.${section.slice(0, 64)}`,
        `is not a pricing section (${PRICING_SECTION_NAMES.join(', ')})`,
      );
    }
    if (!isPlainObject(models)) {
      invalid(`PRICING.${section}`, 'must be an object of model to prices');
    }
    const allowed: readonly string[] = PRICING_SECTIONS[section];
    override[section] = Object.fromEntries(
      Object.entries(models).map(([model, value]) => {
        entries += 1;
        if (entries > PRICING_MAX_ENTRIES) {
          invalid('PRICING', `has more than ${PRICING_MAX_ENTRIES} model entries`);
        }
        const at = `PRICING.${section}.${model.slice(0, 128)}`;
        if (model.trim() === '' || model.length > 256) {
          invalid(at, 'is not a model name');
        }
        return [model, prices(at, allowed, section, value)];
      }),
    );
  }
  return override;
}
