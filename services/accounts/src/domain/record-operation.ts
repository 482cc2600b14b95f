import { AppError, ErrorCode, stripControlCharacters, targetTypeOf, type AuditTargetType } from '@gw/kit';
import { redactSecrets } from './operation-log.js';
import type { AccountsDeps } from './ports/deps.js';

export interface OperationEvent {
  eventId: string;
  action: string;
  operatorId: bigint;
  /** Empty from publishers older than the field: derived from the action. */
  targetType: string;
  targetId: bigint;
  tenantId: bigint;
  details: string;
  ipAddress: string;
  status: string;
  /** ISO 8601; the receive time when absent or unreadable. */
  at: string;
}

const TARGET_TYPES: readonly string[] = ['account', 'key', 'config', 'news'] satisfies AuditTargetType[];

function isTargetType(value: string): value is AuditTargetType {
  return TARGET_TYPES.includes(value);
}

/**
 * Writes one gw.audit.* event into the operation log, once per event id (redeliveries are
 * no-ops), with anything secret-looking scrubbed from its text and no control characters (a NUL
 * from a refused request's path cannot be stored in text, and would fail every redelivery).
 */
export async function recordOperation(
  deps: Pick<AccountsDeps, 'store' | 'clock'>,
  event: OperationEvent,
): Promise<boolean> {
  const eventId = stripControlCharacters(event.eventId);
  if (eventId === '' || eventId.length > 128 || !/^[a-z_]{1,64}$/.test(event.action)) {
    throw new AppError(ErrorCode.InvalidRequest, 'an audit event needs an event id and an action');
  }
  const at = new Date(event.at);
  const targetType = isTargetType(event.targetType) ? event.targetType : targetTypeOf(event.action);
  return deps.store.operations.insert({
    eventId,
    action: event.action,
    operatorId: event.operatorId,
    targetType,
    targetId: event.targetId,
    tenantId: event.tenantId,
    details: redactSecrets(stripControlCharacters(event.details)).slice(0, 4000),
    ipAddress: stripControlCharacters(event.ipAddress).slice(0, 64),
    status: (stripControlCharacters(event.status) || 'success').slice(0, 32),
    createdAt: Number.isNaN(at.getTime()) ? deps.clock.now() : at,
  });
}
