import { configViewObject } from '@gw/kit';
import type { config } from '@gw/proto';

type ConfigAnswer = Pick<config.GetOwnerConfigResponse, 'configs' | 'configsJson'>;

/** The GET /x-config `configs` object of a config answer (secrets masked by the config service). */
export function configsOf(answer: ConfigAnswer): Record<string, unknown> {
  if (answer.configs) {
    return configViewObject(answer.configs);
  }
  // A config service that predates `configs` sends only the JSON (docs/adr/0006-typed-contract-fields.md).
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  return JSON.parse(answer.configsJson || '{}') as Record<string, unknown>;
}

/** `{ success, oid, configs }`. */
export function configAnswer(ownerId: bigint, answer: ConfigAnswer) {
  return { success: true, oid: Number(ownerId), configs: configsOf(answer) };
}
