import { AppError, ErrorCode, type SecretBox } from '@gw/kit';
import type { config } from '@gw/proto';
import { SECRET_KEYS, SECRET_MASK } from './config-values.js';
import { configView } from './config-view.js';

export interface OwnerConfig {
  version: bigint;
  /** Stored canonical strings; secrets masked unless revealed. */
  values: Record<string, string>;
  /** GET /x-config's view, typed. */
  view: config.ConfigView;
}

export const passAad = (ownerId: bigint) => `config:email_pass:${ownerId}`;

/** The answer shape shared by get, update and delete. */
export function ownerConfig(
  box: SecretBox,
  ownerId: bigint,
  version: bigint,
  stored: Record<string, string>,
  reveal: boolean,
): OwnerConfig {
  const values: Record<string, string> = { ...stored };
  for (const key of SECRET_KEYS) {
    const cipher = stored[key];
    if (cipher === undefined) {
      continue;
    }
    if (reveal) {
      const plain = box.open(cipher, passAad(ownerId));
      if (plain === undefined) {
        throw new AppError(
          ErrorCode.Internal,
          `${key} could not be decrypted (is GW_SECRET_KEY the one it was stored with?)`,
        );
      }
      values[key] = plain;
    } else {
      values[key] = SECRET_MASK;
    }
  }
  return { version, values, view: configView(values) };
}
