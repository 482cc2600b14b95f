import { AppError, ErrorCode } from '@gw/kit';
import type { NewsTarget } from './ports/news.js';

/** The console's limits, counted in code points. */
export const MAX_TITLE = 100;
export const MAX_CONTENT = 1000;
export const DEFAULT_DAYS = { system: 7, targeted: 32 } as const;
export const MAX_DAYS = 3650;

const DNA_PATH = /^(\.\d{1,19})+\.$/;

function invalid(message: string, field: string): never {
  throw new AppError(ErrorCode.InvalidRequest, message, { field });
}

function length(text: string): number {
  return Array.from(text).length;
}

/** Title 1-100 characters, content 1-1000; anything else is refused before it is stored. */
export function checkText(title: string, content: string): { title: string; content: string } {
  const trimmedTitle = title.trim();
  if (trimmedTitle === '' || length(trimmedTitle) > MAX_TITLE) {
    invalid(`title must be 1-${MAX_TITLE} characters`, 'title');
  }
  if (content.trim() === '' || length(content) > MAX_CONTENT) {
    invalid(`content must be 1-${MAX_CONTENT} characters`, 'content');
  }
  return { title: trimmedTitle, content };
}

/** How long an item lives: the given days, or 7 for system news and 32 for targeted news. */
export function lifetimeDays(target: NewsTarget, days: number | undefined): number {
  if (days === undefined) {
    return target.scope === 'system' ? DEFAULT_DAYS.system : DEFAULT_DAYS.targeted;
  }
  if (!Number.isInteger(days) || days < 1 || days > MAX_DAYS) {
    invalid(`days must be an integer from 1 to ${MAX_DAYS}`, 'days');
  }
  return days;
}

export function checkTarget(target: NewsTarget): NewsTarget {
  if (target.scope === 'user' && target.accountId <= 0n) {
    invalid('a user news target needs an account id', 'target');
  }
  if (target.scope === 'dna' && !DNA_PATH.test(target.dna)) {
    invalid('a DNA news target must be a path like .1.5.', 'target');
  }
  return target;
}

/**
 * The DNA paths whose news reaches an account: its own path and each ancestor's
 * (`.1.5.9.` → `.1.`, `.1.5.`, `.1.5.9.`). A path in another owner's tree is never a prefix of
 * this one, so an owner's DNA news stays inside its own tree.
 */
export function reachingPaths(dna: string): string[] {
  if (!DNA_PATH.test(dna)) {
    return [];
  }
  const ids = dna.slice(1, -1).split('.');
  return ids.map((_, index) => `.${ids.slice(0, index + 1).join('.')}.`);
}

/** How an operation-log entry names a target: "system news", "user news of account 42", "DNA news of .1.5.". */
export function describeTarget(target: NewsTarget): string {
  switch (target.scope) {
    case 'system':
      return 'system news';
    case 'user':
      return `user news of account ${String(target.accountId)}`;
    case 'dna':
      return `DNA news of ${target.dna}`;
  }
}
