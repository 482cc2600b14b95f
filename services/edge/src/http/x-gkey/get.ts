import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Route } from '../route.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 48 characters drawn without modulo bias (rejection sampling). */
export function randomApiKey(): string {
  let out = '';
  while (out.length < 48) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && out.length < 48) {
        out += ALPHABET.charAt(byte % 62);
      }
    }
  }
  return `sk-${out}`;
}

/** GET /x-gkey: a random API key (generated here, stored nowhere). */
export const getGeneratedKey: Route = {
  method: 'get',
  path: '/x-gkey',
  access: 'owner',
  doc: {
    summary: 'A random API key (stored nowhere)',
    tag: 'keys',
    response: z.object({ success: z.literal(true), Key: z.string() }),
  },
  handle(_deps, _req, res) {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ success: true, Key: randomApiKey() });
    return Promise.resolve();
  },
};
