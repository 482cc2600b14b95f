import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where the built console is: GW_CONSOLE_DIR when set; else `console/` beside the edge's package
 * (its image, scripts/build-service.mjs); else the workspace's packages/console/dist (npm start).
 */
export function consoleDir(configured: string): string {
  if (configured) {
    return configured;
  }
  const beside = fileURLToPath(new URL('../../console', import.meta.url));
  return existsSync(beside)
    ? beside
    : fileURLToPath(new URL('../../../../packages/console/dist', import.meta.url));
}
