import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** 32 random bytes as 64 hex characters (an AES-256 key, or a token). */
export function randomSecret(): string {
  return randomBytes(32).toString('hex');
}

/**
 * The secret kept in file (mode 600), created on first use, so that a restart reads the same
 * value (data encrypted with GW_SECRET_KEY stays readable).
 */
export function persistentSecret(file: string, generate: () => string = randomSecret): string {
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing) {
      return existing;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw error;
    }
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const secret = generate();
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
