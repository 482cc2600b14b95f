import { AppError, ErrorCode, excerpt } from './errors.js';

// C0 controls other than tab, line feed and carriage return, and DEL: PostgreSQL cannot store a
// NUL in text, and none of them belongs in a name, an address or a notice.
/* eslint-disable no-control-regex */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
const CONTROL_ALL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;
/* eslint-enable no-control-regex */

/** The text without its control characters (tab, line feed and carriage return stay). */
export function stripControlCharacters(text: string): string {
  return text.replace(CONTROL_ALL, '');
}

/** A field name fit for a message: its control characters shown escaped, at most 40 characters. */
function printable(name: string): string {
  return excerpt(name.replace(CONTROL_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

/**
 * The path (`Alias`, `ModelMapper.gpt-4o`, `tags.0`) of the first string in `value`, key or
 * value, that holds a control character; undefined when there is none.
 */
export function findControlCharacters(value: unknown, at: readonly string[] = []): string | undefined {
  if (typeof value === 'string') {
    return CONTROL.test(value) ? at.join('.') : undefined;
  }
  if (typeof value !== 'object' || value === null) {
    return undefined;
  }
  for (const [key, inner] of Object.entries(value)) {
    const path = [...at, printable(key)];
    if (CONTROL.test(key)) {
      return path.join('.');
    }
    const found = findControlCharacters(inner, path);
    if (found !== undefined) {
      return found;
    }
  }
  return undefined;
}

/**
 * Refuses input (path parameters, query, body) with a control character anywhere, as a 400
 * naming the field, before it can reach a store that cannot hold it.
 */
export function refuseControlCharacters(input: unknown): void {
  const field = findControlCharacters(input);
  if (field !== undefined) {
    throw new AppError(ErrorCode.InvalidRequest, `${field || 'body'}: must not contain control characters`, {
      field,
    });
  }
}
