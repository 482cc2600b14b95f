import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * AES-256-GCM for secrets at rest (provider keys, private keys, EMAIL_PASS) and for the owner's
 * /x-ekey ciphers. Every cipher binds an associated-data string (the owner id and a purpose), so
 * a cipher copied to another owner or purpose fails to open, as does a tampered one. The IV is
 * random per call: the same plaintext never encrypts to the same text twice.
 *
 * Text form: `gw1.` + base64url(iv[12] || ciphertext || tag[16]): safe in a URL path segment.
 */
const PREFIX = 'gw1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBox {
  seal(plaintext: string, associatedData: string): string;
  /** undefined for anything that is not a cipher sealed by this key with this associated data. */
  open(cipher: string, associatedData: string): string | undefined;
}

/** GW_SECRET_KEY: 32 bytes as 64 hex digits. */
export const secretKeyEnv = z
  .string({ error: 'is required (64 hex digits: 32 random bytes)' })
  .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex digits (32 random bytes)');

export function createSecretBox(hexKey: string): SecretBox {
  const key = Buffer.from(hexKey, 'hex');
  if (key.length !== 32) {
    throw new Error('the secret key must be 32 bytes');
  }
  return {
    seal(plaintext, associatedData) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(associatedData, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
    },
    open(text, associatedData) {
      if (!text.startsWith(PREFIX) || !/^[A-Za-z0-9_-]+$/.test(text.slice(PREFIX.length))) {
        return undefined;
      }
      const raw = Buffer.from(text.slice(PREFIX.length), 'base64url');
      if (raw.length < IV_BYTES + TAG_BYTES) {
        return undefined;
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES), {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(Buffer.from(associatedData, 'utf8'));
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        return Buffer.concat([
          decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
