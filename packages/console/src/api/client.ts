import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/** The session's CSRF token: kept in memory only, sent with every write. */
let csrfToken = '';

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

const withCsrf: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && request.method !== 'HEAD' && csrfToken) {
      request.headers.set('x-csrf-token', csrfToken);
    }
    return request;
  },
};

/**
 * The gateway's API, typed from docs/openapi.json. The session cookie (HttpOnly) goes with every
 * call on its own; the API key is never held here.
 */
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
api.use(withCsrf);

/** The message of an API error body (`{ error: { message } }`), or a readable fallback. */
export function errorMessage(error: unknown): string {
  if (error && typeof error === 'object') {
    const body = error as { error?: { message?: string }; message?: string };
    if (body.error?.message) {
      return body.error.message;
    }
    if (body.message) {
      return body.message;
    }
  }
  return error instanceof Error ? error.message : 'the request failed';
}

/** Answers the data of an openapi-fetch result, or throws its error message. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || result.data === undefined) {
    throw new Error(errorMessage(result.error ?? `HTTP ${result.response.status}`));
  }
  return result.data;
}
