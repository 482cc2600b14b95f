import {
  allowsResource,
  AppError,
  CompiledOnce,
  ErrorCode,
  parseMapper,
  PatternTable,
  splitPatternList,
  type AiEndpoint,
  type CallerIdentity,
} from '@gw/kit';
import { levelMapperOf, type OwnerPool } from './pool.js';

const accountMappers = new CompiledOnce((text) => new PatternTable(parseMapper(text)));
const accountLevelMappers = new CompiledOnce(levelMapperOf);
const resourceLists = new CompiledOnce((text) => splitPatternList(text));

/** AllowLevels: integers separated by comma or space; empty allows every Level. */
export function isLevelAllowed(allowLevels: string, level: number): boolean {
  const levels = splitPatternList(allowLevels);
  return levels.length === 0 || levels.some((value) => Number(value) === level);
}

/** The caller's effective AllowLevels: its own and every ancestor's. */
export function callerMayUseLevel(caller: CallerIdentity, level: number): boolean {
  return [caller.allowLevels, ...caller.inherited.allowLevels].every((list) => isLevelAllowed(list, level));
}

/** The account's LevelMapper (set by its owner), compiled. */
export function accountLevelMapper(text: string): PatternTable<number> {
  return accountLevelMappers.get(text);
}

/** The account's ModelMapper, compiled. */
export function accountMapper(text: string): PatternTable<string> {
  return accountMappers.get(text);
}

/**
 * RESOURCES (the owner's) and Resources (the account's and its ancestors') are allowlists of
 * catalogue paths; an empty list allows every inference endpoint. A call outside any is 403.
 */
export function assertResourceAllowed(pool: OwnerPool, caller: CallerIdentity, endpoint: AiEndpoint): void {
  const lists = [caller.resources, ...caller.inherited.resources].map((text) => resourceLists.get(text));
  for (const allowlist of [pool.routing.resources, ...lists]) {
    if (!allowsResource(allowlist, endpoint)) {
      throw new AppError(ErrorCode.Forbidden, `${endpoint.path} is not among the resources this key may use`);
    }
  }
}
