/** Field names whose values never reach a log line, at whatever depth they are logged. */
const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'secret',
  'secretKey',
  'key',
  'apiKey',
  'authorization',
  'password',
  'token',
]);

export const LOG_CENSOR = '[redacted]';

/** Per secret field name, a serializer that censors it: pino applies these to child bindings too. */
export const SECRET_SERIALIZERS: Readonly<Record<string, () => string>> = Object.fromEntries(
  [...SECRET_FIELDS].map((name) => [name, () => LOG_CENSOR]),
);

/** Deeper than anything the gateway logs; bounds the walk of a cyclic or huge value. */
const MAX_DEPTH = 6;

/**
 * What a log line may show of `value`: every secret field's value replaced by LOG_CENSOR, in
 * plain objects, arrays and errors at any depth (up to MAX_DEPTH). Nothing is copied unless
 * something is censored, so a line without secrets (an access line: scalars only) costs one pass
 * over its fields. An error keeps its class, message and stack in the copy. Other objects
 * (buffers, dates, clients) are not walked.
 */
export function withoutSecrets<T extends object>(value: T, depth = 0): T {
  let copy: Record<string, unknown> | unknown[] | undefined;
  const fields = value as Record<string, unknown>;
  for (const name in fields) {
    if (!Object.hasOwn(fields, name)) {
      continue;
    }
    const field = fields[name];
    let shown = field;
    if (field !== undefined && SECRET_FIELDS.has(name)) {
      shown = LOG_CENSOR;
    } else if (depth < MAX_DEPTH && isWalked(field)) {
      shown = withoutSecrets(field, depth + 1);
    }
    if (shown !== field) {
      copy ??= copyOf(value);
      (copy as Record<string, unknown>)[name] = shown;
    }
  }
  return (copy ?? value) as T;
}

function isWalked(value: unknown): value is object {
  if (value === null || typeof value !== 'object') {
    return false;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  return (
    prototype === Object.prototype || prototype === null || Array.isArray(value) || value instanceof Error
  );
}

/** A shallow copy with the same prototype and own properties (an error's message and stack too). */
function copyOf(value: object): Record<string, unknown> | unknown[] {
  if (Array.isArray(value)) {
    return [...(value as unknown[])];
  }
  return Object.create(
    Object.getPrototypeOf(value) as object | null,
    Object.getOwnPropertyDescriptors(value),
  ) as Record<string, unknown>;
}
