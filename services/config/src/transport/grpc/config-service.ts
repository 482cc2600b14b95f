import { configViewObject, type AsyncHandlers } from '@gw/kit';
import type { config as configPb } from '@gw/proto';
import { autoConfigLevels } from '../../domain/auto-config-levels.js';
import { deleteConfig } from '../../domain/delete-config.js';
import { getConfig } from '../../domain/get-config.js';
import { getSystemSettings, updateSystemSettings } from '../../domain/system-settings.js';
import type { OwnerConfig } from '../../domain/owner-config.js';
import type { ConfigDeps } from '../../domain/ports/deps.js';
import { updateConfig } from '../../domain/update-config.js';

/** The answer of get, update and delete: the view typed, and as JSON for older readers. */
function toProtoConfig(owner: OwnerConfig): configPb.GetOwnerConfigResponse {
  return {
    version: owner.version,
    values: owner.values,
    configs: owner.view,
    // Deprecated field, filled for readers that predate `configs` (docs/adr/0006-typed-contract-fields.md).
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    configsJson: JSON.stringify(configViewObject(owner.view)),
  };
}

/** Thin gRPC adapter: decode, call one operation, encode. Errors map in the kit's server. */
export function configHandlers(deps: ConfigDeps): AsyncHandlers<configPb.ConfigServiceServer> {
  return {
    getOwnerConfig: async (request) =>
      toProtoConfig(
        await getConfig(deps, { ownerId: request.ownerId, revealSecrets: request.revealSecrets ?? false }),
      ),
    updateOwnerConfig: async (request) =>
      toProtoConfig(
        await updateConfig(deps, {
          ownerId: request.ownerId,
          values: request.values,
          mergeLimits: request.mergeLimits,
          ownerIsRoot: request.ownerIsRoot ?? false,
          operatorId: request.operatorId,
          ipAddress: request.ipAddress,
        }),
      ),
    deleteOwnerConfig: async (request) =>
      toProtoConfig(
        await deleteConfig(deps, {
          ownerId: request.ownerId,
          keys: request.keys,
          operatorId: request.operatorId,
          ipAddress: request.ipAddress,
        }),
      ),
    autoConfigLevels: async (request) => autoConfigLevels(deps, request),
    getSystemSettings: async () => ({ settings: await getSystemSettings(deps) }),
    updateSystemSettings: async (request) => ({
      settings: await updateSystemSettings(
        deps,
        { logEnable: request.logEnable },
        { operatorId: request.operatorId, ipAddress: request.ipAddress },
      ),
    }),
  };
}
