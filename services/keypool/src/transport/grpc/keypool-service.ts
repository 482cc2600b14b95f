import type { AsyncHandlers } from '@gw/kit';
import type { keypool as pb } from '@gw/proto';
import { createKey } from '../../domain/create-key.js';
import { decryptSecret } from '../../domain/decrypt-secret.js';
import { deleteKey } from '../../domain/delete-key.js';
import { encryptSecret } from '../../domain/encrypt-secret.js';
import { getKey } from '../../domain/get-key.js';
import { getSnapshot } from '../../domain/get-snapshot.js';
import { listKeys } from '../../domain/list-keys.js';
import { listSleepingKeys } from '../../domain/list-sleeping-keys.js';
import type { KeypoolDeps } from '../../domain/ports/deps.js';
import { reloadKeys } from '../../domain/reload-keys.js';
import { updateKey } from '../../domain/update-key.js';
import { wakeKeys } from '../../domain/wake-keys.js';
import { fromProtoFields, toProtoKey, toProtoSleeping } from './mappers.js';

/** Thin gRPC adapter: decode, call one operation, encode. Errors map in the kit's server. */
export function keypoolHandlers(deps: KeypoolDeps): AsyncHandlers<pb.KeypoolServiceServer> {
  return {
    listKeys: async (request) => {
      const page = await listKeys(deps, {
        ownerId: request.ownerId,
        id: request.id,
        level: request.level,
        provider: request.provider || undefined,
        status: request.status,
        page: request.page,
        size: request.size,
      });
      return { keys: page.keys.map(toProtoKey), total: BigInt(page.total), page: page.page, size: page.size };
    },
    getKey: async (request) => ({
      key: toProtoKey(await getKey(deps, { ownerId: request.ownerId, id: request.id })),
    }),
    createKey: async (request) => {
      const created = await createKey(deps, {
        ownerId: request.ownerId,
        ownerIsRoot: request.ownerIsRoot,
        operatorId: request.operatorId,
        ipAddress: request.ipAddress,
        fields: fromProtoFields(request.fields),
      });
      return {
        key: toProtoKey(created.key),
        version: created.version,
        autoLevelMapper: created.autoLevelMapper,
      };
    },
    updateKey: async (request) => {
      const updated = await updateKey(deps, {
        ownerId: request.ownerId,
        ownerIsRoot: request.ownerIsRoot,
        operatorId: request.operatorId,
        ipAddress: request.ipAddress,
        id: request.id,
        fields: fromProtoFields(request.fields),
      });
      return { key: toProtoKey(updated.key), version: updated.version };
    },
    deleteKey: async (request) =>
      deleteKey(deps, {
        ownerId: request.ownerId,
        operatorId: request.operatorId,
        ipAddress: request.ipAddress,
        id: request.id,
      }),
    getSnapshot: async (request) => {
      const snapshot = await getSnapshot(deps, { ownerId: request.ownerId });
      return {
        version: snapshot.version,
        ownerIsRoot: snapshot.ownerIsRoot,
        keys: snapshot.keys.map(toProtoKey),
      };
    },
    encryptSecret: async (request) => ({ ciphertext: await encryptSecret(deps, request) }),
    decryptSecret: async (request) => ({ plaintext: await decryptSecret(deps, request) }),
    listSleepingKeys: async (request) => ({
      keys: (await listSleepingKeys(deps, request)).map(toProtoSleeping),
    }),
    wakeKeys: async (request) => wakeKeys(deps, { ownerId: request.ownerId, keyIds: request.keyIds }),
    reloadKeys: async (request) => ({ version: await reloadKeys(deps, request) }),
  };
}
