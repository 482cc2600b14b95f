import { AppError, ErrorCode } from '@gw/kit';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type KeyFilter, type KeyView } from './model.js';
import type { KeypoolDeps } from './ports/deps.js';
import { providerHostOf } from './provider-url.js';
import { maskedView } from './secrets.js';

export interface ListKeysInput {
  ownerId: bigint;
  id?: bigint;
  level?: number;
  /** A full URL or a host. */
  provider?: string;
  status?: boolean;
  /** 0 means 1 (only `size` sent means page 1). */
  page: number;
  /** 0 means the default. */
  size: number;
}

export interface KeyPage {
  keys: KeyView[];
  total: number;
  page: number;
  size: number;
}

/** The owner's keys, filtered and paged, secrets masked. */
export async function listKeys(deps: KeypoolDeps, input: ListKeysInput): Promise<KeyPage> {
  const page = input.page === 0 ? 1 : input.page;
  const size = input.size === 0 ? DEFAULT_PAGE_SIZE : input.size;
  if (!Number.isInteger(page) || page < 1 || page > 1_000_000) {
    throw new AppError(ErrorCode.InvalidRequest, 'page: must be a positive integer', { field: 'page' });
  }
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw new AppError(ErrorCode.InvalidRequest, `size: must be an integer from 1 to ${MAX_PAGE_SIZE}`, {
      field: 'size',
    });
  }
  const filter: KeyFilter = {
    id: input.id,
    level: input.level,
    providerHost: input.provider ? providerHostOf(input.provider) : undefined,
    status: input.status,
  };
  const { rows, total } = await deps.store.list(input.ownerId, filter, {
    offset: (page - 1) * size,
    limit: size,
  });
  return { keys: rows.map(maskedView), total, page, size };
}
