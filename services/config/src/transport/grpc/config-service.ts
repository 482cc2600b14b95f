import type { AsyncHandlers } from '@gw/kit';
import type { config as pb } from '@gw/proto';
import { autoConfigLevels } from '../../domain/auto-config-levels.js';
import { deleteConfig } from '../../domain/delete-config.js';
import { getConfig } from '../../domain/get-config.js';
import type { ConfigDeps } from '../../domain/ports.js';
import { updateConfig } from '../../domain/update-config.js';

/** Thin gRPC adapter: decode, call one operation, encode. Errors map in the kit's server. */
export function configHandlers(deps: ConfigDeps): AsyncHandlers<pb.ConfigServiceServer> {
  return {
    getOwnerConfig: async (request) =>
      getConfig(deps, { ownerId: request.ownerId, revealSecrets: request.revealSecrets ?? false }),
    updateOwnerConfig: async (request) =>
      updateConfig(deps, {
        ownerId: request.ownerId,
        values: request.values,
        mergeLimits: request.mergeLimits,
        ownerIsRoot: request.ownerIsRoot ?? false,
      }),
    deleteOwnerConfig: async (request) =>
      deleteConfig(deps, { ownerId: request.ownerId, keys: request.keys }),
    autoConfigLevels: async (request) => autoConfigLevels(deps, request),
  };
}
