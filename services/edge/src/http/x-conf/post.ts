import { AppError, ErrorCode, ownerIdOf } from '@gw/kit';
import { callerOf } from '../../auth/authenticate.js';
import { parseInput, type Route } from '../route.js';
import { configsOf } from '../x-config/render.js';
import { confAppliedResponse, postConfBody } from './schemas.js';

/** POST /x-conf field → owner configuration key. */
const CONFIG_FIELDS = {
  Resources: 'RESOURCES',
  LevelMapper: 'LEVEL_MAPPER',
  ModelMapper: 'MODEL_MAPPER',
  ModelFailover: 'MODEL_FAILOVER',
  ModelLimits: 'MODEL_LIMITS',
} as const;

/**
 * POST /x-conf: batch configuration. The config fields are validated and stored in one config
 * update (mapper operations `a=b`/`-a`; ModelLimits `*`/`=` clear, `-m` removes, an object
 * merges); only then are LoadKeys (new pool version, every proxy reloads) and DelKeys (every
 * sleeping key woken) applied. ModelMapper and ModelLimits reach descendants by layering: the
 * proxy applies an account's own entries first and the owner's after, so descendants keep
 * their own entries and get the owner's for everything else.
 * LogEnable is the system-wide switch of the per-request access lines of every edge and proxy
 * (root only: anyone else sending it gets 403 and nothing of the batch is applied); it is stored
 * by the config service, which publishes `gw.system.updated`, and every edge and proxy applies it
 * on that event. SaveCache has nothing to do here (no process keeps unsaved user state): it is
 * accepted and echoed.
 */
export const postConf: Route = {
  method: 'post',
  path: '/x-conf',
  access: 'owner',
  doc: {
    summary: 'Batch configuration: maps, key reload and wake-up',
    tag: 'config',
    body: postConfBody,
    response: confAppliedResponse,
  },
  async handle(deps, req, res) {
    const body = parseInput(postConfBody, req.body);
    const caller = callerOf(res);
    const ownerId = ownerIdOf(caller);
    const echo: Record<string, unknown> = {};
    if (body.LogEnable !== undefined && !caller.isRoot) {
      throw new AppError(ErrorCode.Forbidden, 'only root may switch the access log (LogEnable)');
    }

    const values: Record<string, string> = {};
    for (const [field, key] of Object.entries(CONFIG_FIELDS)) {
      const value = body[field as keyof typeof CONFIG_FIELDS];
      if (value !== undefined) {
        values[key] = typeof value === 'string' ? value : JSON.stringify(value);
      }
    }
    if (Object.keys(values).length > 0) {
      const answer = await deps.configs.updateOwnerConfig({
        ownerId,
        values,
        mergeLimits: true,
        operatorId: caller.id,
        ipAddress: req.ip ?? '',
      });
      const configs = configsOf(answer);
      for (const [field, key] of Object.entries(CONFIG_FIELDS)) {
        if (values[key] !== undefined) {
          echo[field] = configs[key];
        }
      }
    }
    if (body.LogEnable !== undefined) {
      await deps.configs.updateSystemSettings({
        logEnable: body.LogEnable,
        operatorId: caller.id,
        ipAddress: req.ip ?? '',
      });
    }
    if (body.LoadKeys === true) {
      await deps.keypool.reloadKeys({ ownerId });
    }
    if (body.DelKeys === true) {
      const woken = await deps.keypool.wakeKeys({ ownerId, keyIds: [] });
      echo.WokenKeys = woken.woken;
    }
    for (const field of ['LoadKeys', 'LogEnable', 'SaveCache', 'DelKeys'] as const) {
      if (body[field] !== undefined) {
        echo[field] = String(body[field]);
      }
    }
    res.json({ success: true, ...echo });
  },
};
