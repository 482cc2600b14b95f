import { parsePricingOverride } from './parse-override.js';
import { PRICING_SECTION_NAMES, type PriceTable, type PricingOverride } from './sections.js';

/**
 * One owner's prices: its PRICING (the stored text, or an already parsed override) merged field
 * by field over the defaults. A field the owner sets replaces that one field; `Sizes` merges size
 * by size; every other field and model keeps the default. A model name the defaults lack is
 * added to this owner's table only: the defaults are never changed, so each owner gets its own
 * merged table.
 */
export function mergePricing(defaults: PriceTable, override: string | PricingOverride): PriceTable {
  const parsed = typeof override === 'string' ? parsePricingOverride(override) : override;
  const merged = { ...defaults };
  for (const section of PRICING_SECTION_NAMES) {
    const models = parsed[section];
    if (!models) {
      continue;
    }
    const defaultsOfSection = defaults[section] as Record<string, Record<string, unknown>>;
    const changed = Object.entries(models as Record<string, Record<string, unknown>>).map(
      ([model, prices]) => {
        const base = Object.hasOwn(defaultsOfSection, model) ? defaultsOfSection[model] : {};
        const entry: Record<string, unknown> = { ...base, ...prices };
        if ('Sizes' in prices && base?.Sizes) {
          entry.Sizes = {
            ...(base.Sizes as Record<string, number>),
            ...(prices.Sizes as Record<string, number>),
          };
        }
        return [model, entry] as const;
      },
    );
    // fromEntries defines own properties, so a model named like `__proto__` stays a plain key.
    const table = Object.fromEntries([...Object.entries(defaultsOfSection), ...changed]);
    (merged as Record<string, unknown>)[section] = table;
  }
  return merged;
}
