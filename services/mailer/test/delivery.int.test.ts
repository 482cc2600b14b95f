import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AppError,
  createLogger,
  ErrorCode,
  createMailQueue,
  MAIL_JOBS,
  QUEUES,
  usd,
  type MailQueue,
} from '@gw/kit';
import type { accounts } from '@gw/proto';
import {
  addressesOf,
  createAccountByRpc,
  createTestDatabase,
  rootAccountId,
  startService,
  startSmtpSink,
  waitFor,
  type ServiceClient,
  type SmtpSink,
  type StartedService,
  type TestDatabase,
} from '@gw/testkit';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BANNER = 'BANNER-SECRET-4711 internal relay says no';
let counter = 0;

describe('mailer: the mail queue worker', () => {
  let mailer: StartedService<'mailer'>;
  let configs: ServiceClient<'config'>;
  let database: TestDatabase;
  let sink: SmtpSink;
  let queue: MailQueue;
  let redis: Redis;
  let bull: Queue;
  let rootId: bigint;

  const deliveries = async (jobId: string) =>
    (await mailer.client.listDeliveries({ recipient: '', jobId })).deliveries;
  const settled = async (jobId: string, status: string) => {
    await waitFor(
      async () => (await deliveries(jobId)).some((entry) => entry.status === status),
      `job ${jobId} ${status}`,
      30_000,
      100,
    );
    return deliveries(jobId);
  };
  const createUser = (fields: accounts.AccountFields = {}) =>
    createAccountByRpc(mailer, { credit: 3, fields });
  /** Root's configuration changed as PUT /x-config does it for root. */
  const configure = (values: Record<string, string>) =>
    configs.updateOwnerConfig({
      ownerId: rootId,
      values,
      mergeLimits: false,
      operatorId: rootId,
      ownerIsRoot: true,
      ipAddress: '127.0.0.1',
    });
  const jobId = (kind: string) => `${kind}-${Date.now().toString(36)}-${++counter}`;

  beforeAll(async () => {
    database = await createTestDatabase();
    sink = await startSmtpSink();
    mailer = await startService('mailer', {
      databaseUrl: database.url,
      with: ['accounts', 'config'],
      env: { GW_MAIL_RETRY_MS: '100', GW_PUBLIC_URL: 'https://gateway.example.test' },
    });
    configs = mailer.clientOf('config');
    const log = createLogger('mailer-test', 'silent');
    queue = createMailQueue(
      mailer.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      mailer.env.GW_QUEUE_PREFIX ?? '',
      log,
      100,
    );
    redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    bull = new Queue(QUEUES.mail, { connection: redis, prefix: mailer.env.GW_QUEUE_PREFIX ?? '' });
    rootId = await rootAccountId(mailer);
    await configure({
      EMAIL_SMTP: '127.0.0.1',
      EMAIL_PORT: String(sink.port),
      SVC_MAIL: 'ops@gateway.example.test',
      EMAIL_AUTH: 'relay-user',
      EMAIL_PASS: 'relay-pass-Zx9',
    });
  });

  afterAll(async () => {
    await queue.close();
    await bull.close();
    redis.disconnect();
    await mailer.stop();
    await sink.close();
    await database.drop();
  });

  it("sends a soft-limit alert to the account's BillingEmail with the owner's login and SVC_MAIL", async () => {
    const user = await createUser({ billingEmail: 'accounting@example.org', softLimitNano: usd(2.5) });
    const id = jobId('soft');
    expect(
      await queue.enqueue(
        MAIL_JOBS.softLimit,
        { kind: 'soft_limit', accountId: String(user.id), month: '2030-01' },
        id,
      ),
    ).toBe(true);
    const mail = await sink.waitForMessage((m) => addressesOf(m.to).includes('accounting@example.org'));
    expect(addressesOf(mail.from)).toEqual(['ops@gateway.example.test']);
    expect(mail.subject).toContain(user.name);
    expect(mail.text).toContain('2.5 USD');
    expect(mail.html).toContain('2030-01');
    expect(mail.messageId).toBe(`<${id}@gateway.example.test>`);
    expect(sink.logins).toContainEqual({ username: 'relay-user', password: 'relay-pass-Zx9' });
    const log = await settled(id, 'sent');
    expect(log).toEqual([
      expect.objectContaining({
        template: 'soft_limit',
        recipient: 'accounting@example.org',
        attempt: 1,
        transport: 'owner-smtp',
        error: '',
      }),
    ]);
  });

  it("sends a key-auth alert to the owner's Email", async () => {
    const id = jobId('keyauth');
    await queue.enqueue(
      MAIL_JOBS.keyAuth,
      { kind: 'key_auth_failed', ownerId: String(rootId), keyId: '42' },
      id,
    );
    const mail = await sink.waitForMessage((m) => m.subject === 'Provider key #42 was refused');
    expect(addressesOf(mail.to)).toEqual(['root@localhost.invalid']);
    expect(mail.text).toContain('#42');
  });

  it('retries after the SMTP server refuses twice, with growing delays, and never repeats its text', async () => {
    const user = await createUser();
    const before = sink.connections();
    sink.refuseNext(2, BANNER);
    const id = jobId('billing');
    await queue.enqueue(
      MAIL_JOBS.billingNotice,
      {
        kind: 'billing_notice',
        accountId: String(user.id),
        subject: 'Your bill for March',
        text: 'Total: 1.23 USD',
      },
      id,
    );
    const mail = await sink.waitForMessage((m) => m.subject === 'Your bill for March');
    expect(addressesOf(mail.to)).toEqual([`${user.name}@example.com`]);
    expect(sink.connections() - before).toBe(3);
    const log = await settled(id, 'sent');
    expect(log.map((entry) => [entry.attempt, entry.status])).toEqual([
      [1, 'retrying'],
      [2, 'retrying'],
      [3, 'sent'],
    ]);
    expect(log[0]?.error).toBe('the mail server deferred the message (421)');
    const gaps = [
      Date.parse(log[1]!.at) - Date.parse(log[0]!.at),
      Date.parse(log[2]!.at) - Date.parse(log[1]!.at),
    ];
    expect(gaps[0]).toBeGreaterThanOrEqual(100);
    expect(gaps[1]).toBeGreaterThanOrEqual(200);
    expect(JSON.stringify(log)).not.toContain('BANNER-SECRET');
    // The lines of both refused attempts are out before their text is looked for.
    await waitFor(
      () => Promise.resolve(mailer.output().split(`"jobId":"${id}"`).length - 1 >= 2),
      'the lines of the refused attempts',
    );
    expect(mailer.output()).not.toContain('BANNER-SECRET');
  });

  it('marks a job dead after five refusals and leaves it in the failed set', async () => {
    const user = await createUser();
    sink.refuseNext(5, BANNER);
    const id = jobId('dead');
    await queue.enqueue(
      MAIL_JOBS.billingNotice,
      { kind: 'billing_notice', accountId: String(user.id), subject: 'never arrives', text: 'x' },
      id,
    );
    const log = await settled(id, 'dead');
    expect(log.map((entry) => entry.status)).toEqual([
      'retrying',
      'retrying',
      'retrying',
      'retrying',
      'dead',
    ]);
    expect(log.map((entry) => entry.attempt)).toEqual([1, 2, 3, 4, 5]);
    await waitFor(async () => (await bull.getJobState(id)) === 'failed', 'the job in the failed set');
    expect(sink.messages.some((m) => m.subject === 'never arrives')).toBe(false);
  });

  it('gives up at once on a job that can never be sent', async () => {
    const id = jobId('gone');
    await queue.enqueue(
      MAIL_JOBS.softLimit,
      { kind: 'soft_limit', accountId: '987654321', month: '2030-02' },
      id,
    );
    const log = await settled(id, 'dead');
    expect(log).toEqual([
      expect.objectContaining({ attempt: 1, status: 'dead', error: 'account 987654321 no longer exists' }),
    ]);
  });

  it("refuses the gateway's own ports as a mail server when saved and again when connecting", async () => {
    const edgePort = mailer.env.GW_EDGE_PORT ?? '';
    for (const [host, port] of [
      ['127.0.0.1', edgePort],
      ['localhost', (mailer.env.ACCOUNTS_ADDR ?? '').split(':')[1] ?? ''],
      ['169.254.169.254', '25'],
    ] as const) {
      const refused = await configure({ EMAIL_SMTP: host, EMAIL_PORT: port }).catch(
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(AppError);
      expect((refused as AppError).code).toBe(ErrorCode.InvalidRequest);
      expect((refused as AppError).message).toMatch(/^EMAIL_SMTP: must not point at/);
    }
    // A value stored before the rule (or a name that moved) is refused on connect.
    await database.query(
      `UPDATE config.owner_configs SET value = $1 WHERE owner_id = $2 AND key = 'EMAIL_PORT'`,
      [edgePort, String(rootId)],
    );
    const user = await createUser();
    const id = jobId('self');
    await queue.enqueue(
      MAIL_JOBS.billingNotice,
      { kind: 'billing_notice', accountId: String(user.id), subject: 's', text: 't' },
      id,
    );
    const log = await settled(id, 'dead');
    expect(log).toEqual([
      expect.objectContaining({
        attempt: 1,
        error: 'the mail server address is refused: must not point at the gateway itself',
      }),
    ]);
    await configure({ EMAIL_PORT: String(sink.port) });
  });

  it('writes an .eml file under the data folder when no SMTP server is configured', async () => {
    await configs.deleteOwnerConfig({
      ownerId: rootId,
      keys: ['EMAIL_SMTP', 'EMAIL_PORT'],
      operatorId: rootId,
      ipAddress: '127.0.0.1',
    });
    const user = await createUser();
    const id = jobId('eml');
    await queue.enqueue(
      MAIL_JOBS.billingNotice,
      { kind: 'billing_notice', accountId: String(user.id), subject: 'Offline notice', text: 'kept on disk' },
      id,
    );
    const log = await settled(id, 'written');
    expect(log[0]?.transport).toBe('eml');
    const folder = join(mailer.env.GW_DATA_DIR ?? '', 'mail');
    expect(existsSync(folder)).toBe(true);
    const file = readdirSync(folder).find((name) => name.includes(id));
    expect(file).toBeDefined();
    const raw = readFileSync(join(folder, file ?? ''), 'utf8');
    expect(raw).toContain('Subject: Offline notice');
    expect(raw).toContain(`To: ${user.name}@example.com`);
    await waitFor(
      () => Promise.resolve(mailer.output().includes(file ?? '')),
      'the line naming the .eml file',
    );
  });
});
