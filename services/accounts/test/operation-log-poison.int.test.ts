import { connectNats, createLogger, publishEvent, SUBJECTS, type NatsConnection } from '@gw/kit';
import { events } from '@gw/proto';
import { deadLetters, startGateway, waitFor, type Gateway } from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface LogsBody {
  logs: Array<{ action: string; details: string; ip_address: string }>;
  total: number;
}

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
  let gw: Gateway;
  let nc: NatsConnection;

  beforeAll(async () => {
    gw = await startGateway();
    nc = await connectNats(gw.natsUrl, 'audit-test', createLogger('audit-test'));
  }, 120_000);

  afterAll(async () => {
    await nc.close();
    await gw.stop();
  });

  const logs = async (query: string) =>
    (await (await gw.request(`/dashboard/logs${query}`)).json()) as LogsBody;

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

    await waitFor(async () => (await logs('?action=update_user')).total === 1, 'the later event', 10_000, 50);
    await waitFor(
      async () => (await logs('?action=delete_user')).total === 1,
      'the NUL-path event',
      10_000,
      50,
    );
    const stored = (await logs('?action=delete_user')).logs[0];
    expect(stored?.details).toBe('DELETE /x-users/abcd refused: no account named abcd');
    expect(stored?.ip_address).toBe('127.0.0.1');
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
