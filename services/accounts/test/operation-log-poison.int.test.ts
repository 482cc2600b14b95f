import { connectNats, createLogger, publishEvent, SUBJECTS, type NatsConnection } from '@gw/kit';
import { events } from '@gw/proto';
import { deadLetters, rootAccountId, startService, waitFor, type StartedService } from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** An audit event as an edge without control-character checks published it for a refused request. */
function auditEvent(eventId: string, action: string, details: string) {
  return {
    action,
    operatorId: 1n,
    targetId: 0n,
    details,
    ipAddress: '127.0.0.1\u0000',
    status: 'failed',
    at: new Date().toISOString(),
    eventId,
    targetType: '',
    tenantId: 0n,
  };
}

describe('operation log: audit events the log cannot store as sent', () => {
  let service: StartedService<'accounts'>;
  let nc: NatsConnection;
  let rootId: bigint;

  beforeAll(async () => {
    service = await startService('accounts');
    nc = await connectNats(service.natsUrl, 'audit-test', createLogger('audit-test'));
    rootId = await rootAccountId(service);
  }, 120_000);

  afterAll(async () => {
    await nc.close();
    await service.stop();
  });

  /** Root's operation log of one action, as GET /dashboard/logs reads it. */
  const logs = (action: string) =>
    service.client.listOperations({ callerId: rootId, action, page: 1, size: 24 });

  it('stores a NUL-path event without its control characters, sets a malformed one aside, and goes on', async () => {
    publishEvent(
      nc,
      SUBJECTS.audit('delete_user'),
      events.AuditRecorded,
      auditEvent(
        'evt_nul_path',
        'delete_user',
        'DELETE /x-users/ab\u0000cd refused: no account named ab\u0000cd',
      ),
    );
    // An action the log refuses: it can never be stored, so it is set aside with its reason.
    publishEvent(nc, 'gw.audit.x', events.AuditRecorded, auditEvent('evt_bad_action', 'Not An Action!', 'x'));
    publishEvent(nc, SUBJECTS.audit('update_user'), events.AuditRecorded, {
      ...auditEvent('evt_after', 'update_user', 'updated 5'),
      ipAddress: '127.0.0.1',
    });
    await nc.flush();

    await waitFor(async () => (await logs('update_user')).total === 1n, 'the later event', 10_000, 50);
    await waitFor(async () => (await logs('delete_user')).total === 1n, 'the NUL-path event', 10_000, 50);
    const stored = (await logs('delete_user')).entries[0];
    expect(stored?.details).toBe('DELETE /x-users/abcd refused: no account named abcd');
    expect(stored?.ipAddress).toBe('127.0.0.1');
    await waitFor(
      async () => (await deadLetters(nc, 'accounts-operation-log')).length === 1,
      'the set-aside event',
      10_000,
      50,
    );
    const [letter] = await deadLetters(nc, 'accounts-operation-log');
    expect(letter?.reason).toBe('rejected');
    expect(JSON.parse(letter?.data ?? '{}')).toMatchObject({ eventId: 'evt_bad_action' });
  });
});
