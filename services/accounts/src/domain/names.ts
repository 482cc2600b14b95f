/**
 * Names are compared after NFKC normalisation and case folding (so look-alikes collide) and
 * counted in code points; e-mails are trimmed and lower-cased, and lose the DNS root dot
 * (`a@example.org.` is `a@example.org`) (docs/decisions.md §10).
 */
export function normaliseName(name: string): string {
  return name.normalize('NFKC');
}

export function nameKey(name: string): string {
  return normaliseName(name).toLowerCase();
}

/** An e-mail as compared: trimmed, lower-cased, without trailing (DNS root) dots. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase().replace(/\.+$/, '');
}

// Control characters are exactly what this pattern is for.
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/u;

/** Why a name is refused, or undefined when it is acceptable. */
export function nameProblem(name: string): string | undefined {
  const normal = normaliseName(name);
  const length = Array.from(normal).length; // code points, not UTF-16 units
  if (length < 4 || length > 63) {
    return 'Name must be 4-63 characters';
  }
  if (!/\p{L}/u.test(normal)) {
    return 'Name must contain at least one letter';
  }
  if (INVISIBLE.test(normal)) {
    return 'Name must not contain control or invisible characters';
  }
  return undefined;
}

const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/u;

export function emailProblem(email: string): string | undefined {
  const trimmed = email.trim();
  if (trimmed.length > 254 || !EMAIL.test(trimmed) || INVISIBLE.test(trimmed)) {
    return 'Email must be a valid address';
  }
  return undefined;
}
