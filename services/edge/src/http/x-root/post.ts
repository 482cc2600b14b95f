import { rotateKeyRoute } from '../rotate-key.js';

/** POST /x-root (root only): `{ confirm: "<today UTC>-ROTATE-ROOT", key?, name? }`. */
export const postRoot = rotateKeyRoute('/x-root', 'root', true);
