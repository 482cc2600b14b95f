import { AppError, ErrorCode } from './errors.js';

const OPEN = new Set([0x7b, 0x5b]); // { [
const CLOSE = new Set([0x7d, 0x5d]); // } ]

/**
 * Refuses (400) a JSON body nested deeper than `maxDepth`, reading the raw bytes once before they
 * are parsed: nothing after it (parsing, validation, hashing, re-serialising) ever walks a deeper
 * structure, and the cost is linear in the size. The edge bounds management bodies with it, the
 * proxy AI bodies.
 */
export function assertJsonDepth(body: Buffer, maxDepth: number): void {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (const byte of body) {
    if (inString) {
      if (escaped) {
        escaped = false;
      } else if (byte === 0x5c) {
        escaped = true;
      } else if (byte === 0x22) {
        inString = false;
      }
    } else if (byte === 0x22) {
      inString = true;
    } else if (OPEN.has(byte)) {
      depth += 1;
      if (depth > maxDepth) {
        throw new AppError(ErrorCode.InvalidRequest, `request body nests deeper than ${maxDepth} levels`);
      }
    } else if (CLOSE.has(byte)) {
      depth -= 1;
    }
  }
}
