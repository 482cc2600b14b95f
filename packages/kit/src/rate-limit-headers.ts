import type { RateLimitWindows } from './errors.js';

/** `1s`, `6m0s`, `20ms`: durations as OpenAI's rate-limit reset headers write them. */
export function resetText(ms: number): string {
  if (ms < 1_000) {
    return `${Math.max(0, Math.ceil(ms))}ms`;
  }
  const seconds = Math.ceil(ms / 1_000);
  const hours = Math.floor(seconds / 3_600);
  const minutes = Math.floor((seconds % 3_600) / 60);
  const rest = seconds % 60;
  return hours > 0 ? `${hours}h${minutes}m${rest}s` : minutes > 0 ? `${minutes}m${rest}s` : `${rest}s`;
}

/**
 * The `x-ratelimit-*` headers OpenAI clients read to back off, on an admitted call's answer and
 * on a refusal's 429 alike: for requests and for tokens, the window's limit, what remains and
 * when it resets. The only place these headers are written.
 */
export function rateLimitHeaders(windows: RateLimitWindows): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const kind of ['requests', 'tokens'] as const) {
    const window = windows[kind];
    if (window) {
      headers[`x-ratelimit-limit-${kind}`] = String(window.limit);
      headers[`x-ratelimit-remaining-${kind}`] = String(window.remaining);
      headers[`x-ratelimit-reset-${kind}`] = resetText(window.resetMs);
    }
  }
  return headers;
}
