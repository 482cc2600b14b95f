import type { Logger, PromiseClient } from '@gw/kit';
import type { config } from '@gw/proto';
import type { LevelAutoConfig } from '../../domain/ports/deps.js';

/**
 * LEVEL_MAPPER auto-completion through the config service. A failure is logged here and raised:
 * the caller decides what it means (create-key adds the key either way).
 */
export function grpcLevelAutoConfig(
  client: PromiseClient<config.ConfigServiceClient>,
  log: Logger,
): LevelAutoConfig {
  return {
    async complete(input) {
      try {
        const answer = await client.autoConfigLevels(input);
        return answer.added;
      } catch (error) {
        log.warn({ err: error, ownerId: String(input.ownerId) }, 'LEVEL_MAPPER auto-completion failed');
        throw error;
      }
    },
  };
}
