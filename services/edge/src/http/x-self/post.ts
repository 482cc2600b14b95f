import { rotateKeyRoute } from '../rotate-key.js';

/** POST /x-self: `{ confirm: "<today UTC>-ROTATE-SELF", key? }`. */
export const postSelf = rotateKeyRoute('/x-self', 'user', false);
