import { and, eq, isNull } from 'drizzle-orm';
import type { AccountRecord } from '../domain/model.js';
import type { AccountLookup, AccountWrite } from '../domain/ports/accounts.js';
import { accounts } from './schema.js';

/** Rows a lookup may answer: soft-deleted accounts are gone for everyone but Debit. */
export const live = isNull(accounts.deletedAt);

export function toRecord(row: typeof accounts.$inferSelect): AccountRecord {
  const {
    nameKey: _nameKey,
    emailKey: _emailKey,
    deletedAt: _deleted,
    softAlertMonth: _alert,
    nameScope: _scope,
    ...record
  } = row;
  return record;
}

/** LIKE pattern text matched literally: backslash is PostgreSQL's default LIKE escape. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

export function lookupCondition(where: AccountLookup) {
  switch (where.by) {
    case 'id':
      return eq(accounts.id, where.id);
    case 'name':
      return and(eq(accounts.nameScope, where.scope), eq(accounts.nameKey, where.nameKey));
    case 'email':
      return and(eq(accounts.nameScope, where.scope), eq(accounts.emailKey, where.emailKey));
    case 'dna':
      return eq(accounts.dna, where.dna);
  }
}

/**
 * A PostgreSQL unique violation on the name or e-mail key, reported as the refusal it means;
 * undefined for any other error (which the caller rethrows).
 */
export function takenBy(error: unknown): Extract<AccountWrite, { refused: unknown }> | undefined {
  const code =
    (error as { code?: string; cause?: { code?: string } }).code ??
    (error as { cause?: { code?: string } }).cause?.code;
  const text = String((error as { cause?: unknown }).cause ?? error);
  if (code !== '23505' || !/name_key|email_key/.test(text)) {
    return undefined;
  }
  return { refused: text.includes('name_key') ? 'name_taken' : 'email_taken' };
}
