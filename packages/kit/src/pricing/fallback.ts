/**
 * The price of a model priced nowhere (neither the defaults nor the owner's PRICING has it for the
 * call's section): never free by accident. Set with `GW_FALLBACK_PRICE`, either JSON
 * `{"InputText":15,"OutputText":60,"Call":0.01}` or numbers separated by commas
 * `InputText,OutputText[,Call]` (USD per 1M tokens, USD per call). Call is charged once per call,
 * so a call that reports no tokens (an image, a duration) still costs something.
 */
export interface FallbackPrice {
  InputText: number;
  OutputText: number;
  Call: number;
}

/** Used when GW_FALLBACK_PRICE is unset: the price of a large current model, plus a cent a call. */
export const DEFAULT_FALLBACK_PRICE: FallbackPrice = { InputText: 15, OutputText: 60, Call: 0.01 };

const FIELDS = ['InputText', 'OutputText', 'Call'] as const;

function isPrice(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** Reads GW_FALLBACK_PRICE; an empty text is the default. */
export function parseFallbackPrice(text: string): FallbackPrice | { invalid: string } {
  const trimmed = text.trim();
  if (trimmed === '') {
    return DEFAULT_FALLBACK_PRICE;
  }
  let values: Record<string, unknown>;
  if (trimmed.startsWith('{')) {
    try {
      values = JSON.parse(trimmed) as Record<string, unknown>;
    } catch {
      return { invalid: 'not valid JSON' };
    }
    const unknown = Object.keys(values).filter((key) => !(FIELDS as readonly string[]).includes(key));
    if (unknown.length > 0) {
      return { invalid: `unknown fields ${unknown.join(', ')} (InputText, OutputText, Call)` };
    }
  } else {
    const parts = trimmed.split(',').map((part) => part.trim());
    if (parts.length < 2 || parts.length > 3 || parts.some((part) => !/^\d+(\.\d+)?$/.test(part))) {
      return { invalid: 'expected InputText,OutputText[,Call] as non-negative decimals' };
    }
    values = Object.fromEntries(parts.map((part, i): [string, number] => [FIELDS[i] ?? '', Number(part)]));
  }
  const price = { InputText: values.InputText, OutputText: values.OutputText, Call: values.Call ?? 0 };
  if (!isPrice(price.InputText) || !isPrice(price.OutputText) || !isPrice(price.Call)) {
    return { invalid: 'InputText and OutputText are required, every price a finite non-negative number' };
  }
  if (price.InputText + price.OutputText + price.Call === 0) {
    return { invalid: 'a fallback price of zero would make unpriced models free' };
  }
  return price as FallbackPrice;
}
