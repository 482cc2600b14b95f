import { AppError, ErrorCode, type AuditTargetType } from '@gw/kit';
import { loadCaller } from './load-caller.js';
import { DEFAULT_LOG_PAGE_SIZE, logTimestamp, MAX_LOG_PAGE_SIZE } from './operation-log.js';
import type { AccountsDeps } from './ports/deps.js';

export interface ListOperationsInput {
  callerId: bigint;
  /** 0 means the default. */
  page: number;
  size: number;
  action?: string;
  targetType?: string;
  targetId?: bigint;
  status?: string;
}

export interface OperationPage {
  entries: Array<{
    id: bigint;
    action: string;
    operatorId: bigint;
    targetId: bigint;
    details: string;
    ipAddress: string;
    createdAt: string;
    status: string;
    targetType: string;
  }>;
  total: number;
  page: number;
  size: number;
}

/**
 * The caller's operation log, newest first: what it did and what was done to its own account
 * (an entry about a provider key or a configuration never matches by id alone). An owner's log
 * also holds what root did inside its tree.
 */
export async function listOperations(deps: AccountsDeps, input: ListOperationsInput): Promise<OperationPage> {
  const caller = await loadCaller(deps, input.callerId, 'read');
  const page = input.page === 0 ? 1 : input.page;
  const size = input.size === 0 ? DEFAULT_LOG_PAGE_SIZE : input.size;
  if (!Number.isInteger(page) || page < 1 || page > 1_000_000) {
    throw new AppError(ErrorCode.InvalidRequest, 'page must be an integer from 1 to 1000000');
  }
  if (!Number.isInteger(size) || size < 1 || size > MAX_LOG_PAGE_SIZE) {
    throw new AppError(ErrorCode.InvalidRequest, `size must be an integer from 1 to ${MAX_LOG_PAGE_SIZE}`);
  }
  const targetType = input.targetType || undefined;
  if (targetType !== undefined && !['account', 'key', 'config', 'news'].includes(targetType)) {
    throw new AppError(ErrorCode.InvalidRequest, 'target_type must be account, key, config or news');
  }
  const { rows, total } = await deps.store.operations.list({
    accountId: caller.id,
    tenantOwnerId: caller.isOwner && !caller.isRoot ? caller.id : undefined,
    action: input.action || undefined,
    targetType: targetType as AuditTargetType | undefined,
    targetId: input.targetId,
    status: input.status || undefined,
    limit: size,
    offset: (page - 1) * size,
  });
  return {
    entries: rows.map((row) => ({
      id: row.id,
      action: row.action,
      operatorId: row.operatorId,
      targetId: row.targetId,
      details: row.details,
      ipAddress: row.ipAddress,
      createdAt: logTimestamp(row.createdAt),
      status: row.status,
      targetType: row.targetType,
    })),
    total,
    page,
    size,
  };
}
