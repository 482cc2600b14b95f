import type { config } from '@gw/proto';

/** `{ success, oid, configs }`: configs as the config service renders them (secrets masked). */
export function configAnswer(ownerId: bigint, answer: Pick<config.GetOwnerConfigResponse, 'configsJson'>) {
  return {
    success: true,
    oid: Number(ownerId),
    configs: JSON.parse(answer.configsJson || '{}') as Record<string, unknown>,
  };
}
