/** Operation-log rules: the dashboard page size and the secret scrubber applied to every entry. */
export const DEFAULT_LOG_PAGE_SIZE = 24;
export const MAX_LOG_PAGE_SIZE = 100;

/** Replaces anything that looks like a secret (API keys, bearer tokens, key=value secrets). */
export function redactSecrets(text: string): string {
  return text
    .replace(/\bsk-[A-Za-z0-9_-]{8,}/g, '[redacted]')
    .replace(/\bBearer\s+[\x21-\x7e]{8,}/gi, 'Bearer [redacted]')
    .replace(
      /\b(key|secret|token|password|api_key|apikey)(["']?\s*[:=]\s*["']?)[^\s"',}]{6,}/gi,
      '$1$2[redacted]',
    );
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, the spec's created_at form. */
export function logTimestamp(at: Date): string {
  return at.toISOString().slice(0, 19).replace('T', ' ');
}
