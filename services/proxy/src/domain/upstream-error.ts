/** Runs of text shaped like a credential: provider key prefixes, bearer tokens, JWTs, long tokens. */
const KEY_SHAPED = [
  /\b(?:sk|pk|rk)[-_][A-Za-z0-9_-]{6,}/g,
  /\bAIza[A-Za-z0-9_-]{10,}/g,
  /\bBearer\s+[^\s"',]+/gi,
  /\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g,
  /[A-Za-z0-9_+/=-]{32,}/g,
];

/** Longest message relayed; a longer one is cut (an upstream may quote a whole request back). */
const MESSAGE_LIMIT = 1_000;

/** The text with anything shaped like a key replaced by `***`. */
export function maskKeys(text: string): string {
  return KEY_SHAPED.reduce(
    (masked, pattern) =>
      masked.replace(pattern, (match) => (/[0-9]/.test(match) || /^bearer/i.test(match) ? '***' : match)),
    text,
  );
}

const textOrNull = (value: unknown) =>
  typeof value === 'string' ? maskKeys(value) : typeof value === 'number' ? String(value) : null;

/**
 * What the client sees of an upstream's answer to its own mistake (a 4xx relayed as is): only
 * `error.{message,type,code,param}`, each masked, never the rest of the body, which may echo the
 * owner's key, organisation or account details.
 */
export function clientErrorBody(raw: Buffer, status: number): Buffer {
  let error: Record<string, unknown> = {};
  try {
    const value = JSON.parse(raw.toString('utf8')) as { error?: unknown } | null;
    if (value?.error && typeof value.error === 'object') {
      error = value.error as Record<string, unknown>;
    } else if (typeof value?.error === 'string') {
      error = { message: value.error };
    }
  } catch {
    // Not JSON: nothing of it is relayed.
  }
  const message =
    textOrNull(error.message)?.slice(0, MESSAGE_LIMIT) ?? `upstream refused the request (${status})`;
  return Buffer.from(
    JSON.stringify({
      error: {
        message,
        type: textOrNull(error.type) ?? 'invalid_request_error',
        code: textOrNull(error.code),
        param: textOrNull(error.param),
      },
    }),
  );
}
