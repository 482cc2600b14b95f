/**
 * The `{identifier}` path segment of /x-users and /x-dna, in the order the forms are tried:
 * numeric id; e-mail (contains `@`); DNA path (starts with `.`); prefix filter L/G/R/T<int> or
 * F<decimal>; anything else is a username. A name needs four characters and a letter, so no
 * prefix filter of up to three characters can shadow one; longer names that look like a filter
 * ("L1234") are read as the filter.
 */
export type Identifier =
  | { kind: 'id'; id: bigint }
  | { kind: 'email'; email: string }
  | { kind: 'dna'; dna: string }
  | { kind: 'filter'; field: 'level' | 'gear' | 'role' | 'tier'; value: number }
  | { kind: 'filter'; field: 'factor'; value: number }
  | { kind: 'name'; name: string };

const PREFIX_FIELD = { L: 'level', G: 'gear', R: 'role', T: 'tier' } as const;
const MAX_ID = 2n ** 63n - 1n;

export function parseIdentifier(raw: string): Identifier | undefined {
  const text = raw.trim();
  if (text === '' || text.length > 320 || text.includes('\0')) {
    return undefined;
  }
  if (/^\d+$/.test(text)) {
    const id = BigInt(text);
    return id > 0n && id <= MAX_ID ? { kind: 'id', id } : undefined;
  }
  if (text.includes('@')) {
    return { kind: 'email', email: text.toLowerCase() };
  }
  if (text.startsWith('.')) {
    return /^(\.\d+)+\.$/.test(text) ? { kind: 'dna', dna: text } : undefined;
  }
  const prefix = /^([LGRT])(\d{1,9})$/.exec(text);
  if (prefix) {
    return {
      kind: 'filter',
      field: PREFIX_FIELD[prefix[1] as keyof typeof PREFIX_FIELD],
      value: Number(prefix[2]),
    };
  }
  const factor = /^F(\d{1,9}(?:\.\d{1,9})?)$/.exec(text);
  if (factor) {
    return { kind: 'filter', field: 'factor', value: Number(factor[1]) };
  }
  if (/^[LGRTF][-+]?[\d.][\d.eE+-]*$/.test(text)) {
    // Looks like a filter but is not a valid one (L-1, F1e400): refuse rather than guess a name.
    return undefined;
  }
  return { kind: 'name', name: text };
}
