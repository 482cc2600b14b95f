import { randomBytes } from 'node:crypto';

/** Registered prefixes for internal ids (the spec fixes account and key ids as integers). */
const PREFIX = {
  event: 'evt',
  request: 'req',
  ledger: 'led',
} as const;
export type IdKind = keyof typeof PREFIX;

export function newId(kind: IdKind): string {
  return `${PREFIX[kind]}_${randomBytes(12).toString('base64url')}`;
}
