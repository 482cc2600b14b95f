import { nanoToUsd, ownerIdOf } from '@gw/kit';
import type { keypool } from '@gw/proto';
import { callerOf } from '../../auth/authenticate.js';
import type { Route } from '../route.js';
import { configsOf } from '../x-config/render.js';
import { keyRecord } from '../x-keys/render.js';
import { confOverviewResponse } from './schemas.js';

/**
 * GET /x-conf: the owner's overview. Config values come from the config service, sleeping keys
 * (with their remaining sleep; `Model` when the key sleeps for that model only) from the
 * keypool's Redis state, disabled keys from the pool; LogEnable is the system-wide access-log
 * switch (root sets it; every owner sees it).
 */
export const getConf: Route = {
  method: 'get',
  path: '/x-conf',
  access: 'owner',
  doc: {
    summary: "The owner's overview: maps, sleeping and disabled keys",
    tag: 'config',
    response: confOverviewResponse,
  },
  async handle(deps, _req, res) {
    const ownerId = ownerIdOf(callerOf(res));
    const [config, system, sleeping, disabled] = await Promise.all([
      deps.configs.getOwnerConfig({ ownerId }),
      deps.configs.getSystemSettings({}),
      deps.keypool.listSleepingKeys({ ownerId }),
      deps.keypool.listKeys({ ownerId, status: false, provider: '', page: 1, size: 1000 }),
    ]);
    const configs = configsOf(config);
    const sleepingKeys = await Promise.all(
      sleeping.keys.map(async (entry) => {
        const found = await deps.keypool.listKeys({
          ownerId,
          id: entry.keyId,
          provider: '',
          page: 1,
          size: 1,
        });
        const key: keypool.ProviderKey | undefined = found.keys[0];
        return key
          ? {
              ...keyRecord(key),
              ...(entry.model ? { Model: entry.model } : {}),
              SleepTimes: entry.sleepTimes,
              SleepRemaining: Math.ceil(Number(entry.remainingMs) / 1000),
              WakeAt: new Date(Date.now() + Number(entry.remainingMs)).toISOString(),
            }
          : undefined;
      }),
    );
    res.json({
      Resources: configs.RESOURCES ?? {},
      LevelMapper: configs.LEVEL_MAPPER ?? {},
      ModelMapper: configs.MODEL_MAPPER ?? {},
      ModelFailover: configs.MODEL_FAILOVER ?? {},
      ModelLimits: configs.MODEL_LIMITS ?? {},
      SwitchOver: configs.SWITCH_OVER ?? {},
      SleepingKeys: sleepingKeys.filter((key) => key !== undefined),
      DisabledKeys: disabled.keys.map(keyRecord),
      UserMinBalance: nanoToUsd(deps.config.USER_MIN_BALANCE),
      UserApiBalance: nanoToUsd(deps.config.USER_API_BALANCE),
      LogEnable: system.settings?.logEnable ?? true,
    });
  },
};
