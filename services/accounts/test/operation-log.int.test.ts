import { publishEvent, SUBJECTS } from '@gw/kit';
import { events } from '@gw/proto';
import {
  createTestDatabase,
  createUser,
  expectError,
  startGateway,
  waitFor,
  type Gateway,
  type TestDatabase,
} from '@gw/testkit';
import { connect } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface LogsBody {
  logs: Array<{
    id: number;
    action: string;
    operator_id: number;
    target_id: number;
    details: string;
    ip_address: string;
    created_at: string;
    status: string;
    target_type: string;
  }>;
  total: number;
  page: number;
  size: number;
  has_more: boolean;
}

describe('operation log (GET /dashboard/logs) and root audit (GET /x-audit)', () => {
  let gw: Gateway;
  let database: TestDatabase;

  const logs = async (query = '', key?: string) => {
    const response = await gw.request(`/dashboard/logs${query}`, { key: key ?? gw.rootKey });
    expect(response.status).toBe(200);
    return (await response.json()) as LogsBody;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    gw = await startGateway({ databaseUrl: database.url });
  });

  afterAll(async () => {
    // beforeAll may have failed before assigning them.
    await (gw as Gateway | undefined)?.stop();
    await (database as TestDatabase | undefined)?.drop();
  });

  it('logs add, update, delete and rotation from gw.audit.* events, without secrets', async () => {
    const child = await createUser(gw, { credit: 5 });
    const other = await createUser(gw, { credit: 2 });
    expect(
      (
        await gw.request(`/x-users/${child.id}`, {
          method: 'PUT',
          json: { Alias: 'renamed', CreditGranted: 1 },
        })
      ).status,
    ).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const rotated = await gw.request('/x-self', {
      method: 'POST',
      key: child.key,
      json: { confirm: `${today}-ROTATE-SELF` },
    });
    expect(rotated.status).toBe(200);
    const newKey = ((await rotated.json()) as { rotate: { key: string } }).rotate.key;
    expect((await gw.request(`/x-users/${other.id}`, { method: 'DELETE' })).status).toBe(200);

    await waitFor(async () => (await logs()).total >= 4, 'root log entries', 5_000, 50);
    const mine = await logs();
    expect(mine.logs.map((entry) => entry.action).sort()).toEqual([
      'add_user',
      'add_user',
      'delete_user',
      'update_user',
    ]);
    for (const entry of mine.logs) {
      expect(entry.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(entry.status).toBe('success');
      expect(entry.operator_id).toBe(1);
    }
    expect(mine.logs.find((entry) => entry.action === 'delete_user')?.details).toContain('fee');

    await waitFor(async () => (await logs('', newKey)).total >= 2, 'child log entries', 5_000, 50);
    const childLogs = await logs('', newKey);
    expect(childLogs.logs.map((entry) => entry.action).sort()).toEqual([
      'add_user',
      'rotate_self',
      'update_user',
    ]);
    const old = await gw.request('/dashboard/x-user-logs', { key: newKey });
    expect(((await old.json()) as LogsBody).total).toBe(childLogs.total);

    const everything = JSON.stringify(await database.query('SELECT * FROM accounts.operation_log'));
    for (const secret of [child.key, newKey, other.key, gw.rootKey]) {
      expect(everything).not.toContain(secret);
    }
  });

  it('filters by action, target and status, pages with has_more, and refuses bad paging', async () => {
    const deletes = await logs('?action=delete_user');
    expect(deletes.logs.every((entry) => entry.action === 'delete_user')).toBe(true);
    expect(deletes.total).toBe(1);
    const target = deletes.logs[0]?.target_id ?? 0;
    expect((await logs(`?target_id=${target}`)).logs.every((entry) => entry.target_id === target)).toBe(true);
    expect((await logs('?status=failed')).total).toBe(0);
    const first = await logs('?size=1');
    expect(first).toMatchObject({ page: 1, size: 1, has_more: true });
    expect(first.logs).toHaveLength(1);
    expect((await logs()).size).toBe(24);
    for (const query of [
      '?size=101',
      '?size=0',
      '?page=0',
      '?size=abc',
      '?action=DROP%20TABLE',
      '?target_id=-1',
    ]) {
      await expectError(await gw.request(`/dashboard/logs${query}`), 400, 'invalid_request');
    }
  });

  it("records another service's audit event once, even when delivered twice, and scrubs secrets", async () => {
    const nc = await connect({ servers: gw.natsUrl });
    const event = {
      action: 'add_key',
      operatorId: 1n,
      targetId: 77n,
      details: 'added provider key sk-proj-abcdefghijklmnopqrstuvwxyz with api_key=supersecretvalue',
      ipAddress: '127.0.0.1',
      status: 'success',
      at: new Date().toISOString(),
      eventId: 'evt_test_duplicate',
      // As a publisher older than the field sends it: the target type follows from the action.
      targetType: '',
      tenantId: 0n,
    };
    publishEvent(nc, SUBJECTS.audit('add_key'), events.AuditRecorded, event);
    publishEvent(nc, SUBJECTS.audit('add_key'), events.AuditRecorded, event);
    // The log is written in stream order: once a later event is in, both deliveries were handled.
    publishEvent(nc, SUBJECTS.audit('delete_key'), events.AuditRecorded, {
      ...event,
      action: 'delete_key',
      details: 'deleted provider key 77',
      eventId: 'evt_test_after_duplicate',
    });
    await nc.drain();
    await waitFor(async () => (await logs('?action=delete_key')).total === 1, 'the later event', 5_000, 50);
    const keyLogs = await logs('?action=add_key');
    expect(keyLogs.total).toBe(1);
    expect(keyLogs.logs[0]?.details).not.toContain('abcdefghijklmnop');
    expect(keyLogs.logs[0]?.details).not.toContain('supersecretvalue');
  });

  it('logs configuration changes (key names only) and news posts and deletes', async () => {
    const password = 'mail-password-never-in-the-log-7d1f';
    const put = await gw.request('/x-config', {
      method: 'PUT',
      json: { EMAIL_PASS: password, MODEL_MAPPER: 'gpt-4*=gpt-4o' },
    });
    expect(put.status).toBe(200);
    const conf = await gw.request('/x-conf', {
      method: 'POST',
      json: { LevelMapper: 'claude*=2', LogEnable: true },
    });
    expect(conf.status).toBe(200);
    const deleted = await gw.request('/x-config', { method: 'DELETE', json: { keys: ['EMAIL_PASS'] } });
    expect(deleted.status).toBe(200);
    // A refused change is not logged as a change.
    await expectError(
      await gw.request('/x-config', { method: 'PUT', json: { NO_SUCH_KEY: 'x' } }),
      400,
      'invalid_request',
    );

    const child = await createUser(gw, { credit: 2 });
    const posted = await gw.request(`/x-news/${child.id}`, {
      method: 'POST',
      json: { title: 'Maintenance window on Sunday night', content: 'body text that stays out of the log' },
    });
    expect(posted.status).toBe(200);
    const newsId = ((await posted.json()) as { news: { id: number } }).news.id;
    const system = await gw.request('/x-news', {
      method: 'POST',
      json: { title: 'hello all', content: 'x' },
    });
    expect(system.status).toBe(200);
    expect((await gw.request(`/x-news/${child.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await gw.request('/x-news', { method: 'DELETE' })).status).toBe(200);

    await waitFor(async () => (await logs('?target_type=config')).total >= 4, 'config entries', 10_000, 50);
    await waitFor(async () => (await logs('?target_type=news')).total >= 4, 'news entries', 10_000, 50);
    const config = (await logs('?target_type=config')).logs;
    const news = (await logs('?target_type=news')).logs;
    for (const entry of [...config, ...news]) {
      expect(entry).toMatchObject({ operator_id: 1, status: 'success' });
      expect(entry.ip_address).not.toBe('');
    }
    expect(config.every((entry) => entry.target_type === 'config')).toBe(true);
    expect(news.every((entry) => entry.target_type === 'news')).toBe(true);
    // Newest first: PUT, POST /x-conf (its config keys, then LogEnable), DELETE.
    expect(config.map((entry) => entry.action).reverse()).toEqual([
      'update_config',
      'update_config',
      'update_config',
      'delete_config',
    ]);
    const [reset, logSwitch, viaConf, viaPut] = config;
    expect(viaPut?.details).toBe('set EMAIL_PASS, MODEL_MAPPER');
    expect(viaPut?.target_id).toBe(1);
    expect(viaConf?.details).toBe('set LEVEL_MAPPER');
    expect(logSwitch?.details).toBe('system LogEnable=true');
    expect(reset).toMatchObject({ action: 'delete_config', details: 'reset EMAIL_PASS', target_id: 1 });

    expect(news.map((entry) => entry.action).reverse()).toEqual([
      'create_news',
      'create_news',
      'delete_news',
      'delete_news',
    ]);
    const [systemGone, userGone, systemPost, userPost] = news;
    expect(userPost).toMatchObject({ target_id: newsId });
    expect(userPost?.details).toContain(`user news of account ${child.id}`);
    expect(userPost?.details).toContain('Maintenance window on Sunday night');
    expect(systemPost?.details).toContain('system news');
    expect(userGone?.details).toBe(`deleted 1 item of user news of account ${child.id}`);
    expect(systemGone?.details).toBe('deleted 1 item of system news');

    const everything = JSON.stringify(await database.query('SELECT * FROM accounts.operation_log'));
    expect(everything).not.toContain(password);
    expect(everything).not.toContain('body text that stays out of the log');
  });

  it('reports the live conservation check to root only, and names an owner whose books do not balance', async () => {
    const child = await createUser(gw, { credit: 3 });
    await expectError(await gw.request('/x-audit', { key: child.key }), 403, 'forbidden');
    const response = await gw.request('/x-audit');
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      balanced: boolean;
      overall: { difference: string; minted: string };
      unbalanced_owners: number[];
    };
    expect(body.balanced).toBe(true);
    expect(body.overall.difference).toBe('0');
    expect(body.unbalanced_owners).toEqual([]);
    // One nano created out of nowhere is found.
    await database.query(
      'UPDATE accounts.credit_lots SET remaining_nano = remaining_nano + 1 WHERE account_id = $1',
      [child.id],
    );
    const broken = (await (await gw.request('/x-audit')).json()) as typeof body;
    expect(broken.balanced).toBe(false);
    expect(broken.overall.difference).toBe('-0.000000001');
    expect(broken.unbalanced_owners).toEqual([1]);
    await database.query(
      'UPDATE accounts.credit_lots SET remaining_nano = remaining_nano - 1 WHERE account_id = $1',
      [child.id],
    );
  });
});
