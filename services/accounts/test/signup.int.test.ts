import {
  addressesOf,
  createTestDatabase,
  startGateway,
  startSmtpSink,
  waitFor,
  type Gateway,
  type SmtpSink,
  type TestDatabase,
} from '@gw/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { balanceNano } from './accounts-helpers.js';
import { fresh, PUBLIC_URL, verificationOf, type SignupAnswer } from './signup-helpers.js';

describe('self-signup through the edge, the accounts service and the mailer', () => {
  let gw: Gateway;
  let database: TestDatabase;
  let sink: SmtpSink;
  let redis: Redis;
  let deskId: number;
  const secrets: string[] = [];

  const sign = async (email: string) => {
    const response = await gw.request('/x-sign', { method: 'POST', key: null, json: { email } });
    return { status: response.status, body: (await response.json()) as SignupAnswer };
  };
  const verify = async (email: string, code: string) => {
    const response = await gw.request('/x-sign/verify', { method: 'POST', key: null, json: { email, code } });
    return { status: response.status, body: (await response.json()) as SignupAnswer };
  };
  const mailTo = (email: string, subject: string) =>
    sink.waitForMessage((mail) => addressesOf(mail.to).includes(email) && mail.subject === subject);
  const codeFor = async (email: string) => {
    const found = verificationOf(await mailTo(email, 'Your verification code'));
    secrets.push(found.code, found.token);
    return found;
  };
  const accountCount = async () =>
    Number((await database.query<{ n: string }>('SELECT count(*)::text AS n FROM accounts.accounts'))[0]?.n);

  beforeAll(async () => {
    database = await createTestDatabase();
    sink = await startSmtpSink();
    gw = await startGateway({
      databaseUrl: database.url,
      env: {
        SIGN_ENABLE: 'true',
        SIGN_IP_DAILY_CAP: '4',
        SIGN_OWNER: 'signupdesk',
        SIGN_CREDIT: '2.5',
        MAIL_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
        MAIL_FROM: 'welcome@gateway.example.test',
        GW_PUBLIC_URL: PUBLIC_URL,
      },
    });
    redis = new Redis('redis://127.0.0.1:6379');
    const desk = await gw.request('/x-users', {
      method: 'POST',
      json: { Name: 'signupdesk', Email: 'desk@example.com', CreditGranted: 20 },
    });
    expect(desk.status).toBe(200);
    deskId = ((await desk.json()) as { User: { ID: number } }).User.ID;
  });

  afterAll(async () => {
    redis.disconnect();
    await gw.stop();
    await sink.close();
    await database.drop();
  });

  beforeEach(async () => {
    // Every request here comes from 127.0.0.1: each test starts with a fresh per-IP count.
    const keys = await redis.keys(`${gw.env.GW_SIGNUP_PREFIX ?? ''}ip:*`);
    if (keys.length > 0) {
      await redis.del(...keys);
    }
  });

  it('signs up with the mailed code: welcome mail with the key and links, credit from the signup owner', async () => {
    const email = fresh();
    const deskBefore = await balanceNano(database, deskId);
    expect(await sign(email)).toEqual({
      status: 200,
      body: { success: true, message: 'Verification code sent successfully' },
    });
    const { code } = await codeFor(email);
    const verified = await verify(email, code);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ success: true, user: { email } });
    const welcome = await mailTo(email, 'Your account is ready');
    expect(addressesOf(welcome.from)).toEqual(['welcome@gateway.example.test']);
    const key = /API key \(SecretKey\) is: (\S+)/.exec(welcome.text ?? '')?.[1] ?? '';
    secrets.push(key);
    expect(key).toMatch(/^sk-/);
    expect(JSON.stringify(verified.body)).not.toContain(key);
    for (const url of [PUBLIC_URL, `${PUBLIC_URL}/docs`, `${PUBLIC_URL}/v1`, `${PUBLIC_URL}/console/`]) {
      expect(welcome.text).toContain(url);
      expect(welcome.html).toContain(`href="${url}"`);
    }
    const status = await gw.request('/dashboard/status', { key });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ email, balance: 2.5, name: verified.body.user?.name });
    expect(deskBefore - (await balanceNano(database, deskId))).toBe(2_500_000_000n);
    const [row] = await database.query<{ parent_id: string }>(
      'SELECT parent_id::text FROM accounts.accounts WHERE email = $1',
      [email],
    );
    expect(row?.parent_id).toBe(String(deskId));
  });

  it('activates by the mailed link with an HTML page, once', async () => {
    const email = fresh();
    await sign(email);
    const { link } = await codeFor(email);
    const first = await gw.request(link.replace(PUBLIC_URL, ''), { key: null });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^text\/html/);
    const done = await first.text();
    expect(done).toContain('Your account is ready');
    // The page leads into the web console: its sign-in after a success, its sign-up after a failure.
    expect(done).toContain('<a href="/console/">Sign in to the console</a>');
    await mailTo(email, 'Your account is ready');
    const again = await gw.request(link.replace(PUBLIC_URL, ''), { key: null });
    expect(again.status).toBe(400);
    const page = await again.text();
    expect(page).toContain('Activation failed');
    expect(page).toContain('Invalid or expired activation link');
    expect(page).toContain('<a href="/console/signup">Sign up again</a>');
    const bogus = await gw.request(`/x-sign/activate?token=${'A'.repeat(43)}`, { key: null });
    expect(bogus.status).toBe(400);
    expect(await bogus.text()).toContain('<!doctype html>');
  });

  it('refuses a registered address, another code within 2 minutes, and codes that are wrong or reused', async () => {
    expect(await sign(' DESK@example.com ')).toEqual({
      status: 409,
      body: { success: false, message: 'Email already registered' },
    });
    const email = fresh();
    await sign(email);
    const { code } = await codeFor(email);
    expect(await sign(`  ${email.toUpperCase()}`)).toEqual({
      status: 429,
      body: { success: false, message: 'Please wait before requesting another verification code' },
    });
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const before = await accountCount();
    for (let i = 1; i <= 5; i++) {
      const answer = await verify(email, wrong);
      expect(answer.status).toBe(400);
      expect(answer.body.success).toBe(false);
    }
    expect((await verify(email, code)).body.message).toMatch(/no longer valid/);
    expect(await accountCount()).toBe(before);
    expect(sink.messages.filter((mail) => addressesOf(mail.to).includes(email))).toHaveLength(1);
  });

  it('refuses bad bodies in the signup shape', async () => {
    for (const json of [{}, { email: 'not-an-address' }, { email: 'a@example.com', extra: 1 }]) {
      const response = await gw.request('/x-sign', { method: 'POST', key: null, json });
      expect(response.status).toBe(400);
      expect(((await response.json()) as SignupAnswer).success).toBe(false);
    }
    const malformed = await gw.request('/x-sign', {
      method: 'POST',
      key: null,
      headers: { 'content-type': 'application/json' },
      body: '{"email":',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ success: false, message: 'request body is not valid JSON' });
  });

  it('lets exactly the per-IP cap through when 12 addresses ask at once', async () => {
    const emails = Array.from({ length: 12 }, () => fresh('cap'));
    const answers = await Promise.all(emails.map((email) => sign(email)));
    const accepted = answers.filter((answer) => answer.status === 200);
    expect(accepted).toHaveLength(4);
    for (const answer of answers.filter((entry) => entry.status !== 200)) {
      expect(answer).toEqual({
        status: 429,
        body: { success: false, message: 'Too many verification codes requested from this IP today' },
      });
    }
    await waitFor(
      () =>
        Promise.resolve(
          sink.messages.filter((mail) => emails.some((e) => addressesOf(mail.to).includes(e))).length >= 4,
        ),
      'four verification mails',
    );
    // The log row is written once the server has taken the message.
    const delivered = async () =>
      (
        await database.query<{ n: string }>(
          `SELECT count(*)::text AS n FROM mailer.deliveries WHERE recipient = ANY($1) AND status = 'sent'`,
          [emails],
        )
      )[0]?.n;
    await waitFor(async () => (await delivered()) === '4', 'four sent deliveries in the log');
    expect(sink.messages.filter((mail) => emails.some((e) => addressesOf(mail.to).includes(e)))).toHaveLength(
      4,
    );
  });

  it('keeps codes, tokens and keys out of Redis, the databases and every log', async () => {
    expect(secrets.length).toBeGreaterThanOrEqual(5);
    const prefixes = [gw.env.GW_QUEUE_PREFIX ?? '', gw.env.GW_SIGNUP_PREFIX ?? ''];
    const dump: string[] = [];
    for (const prefix of prefixes) {
      for (const key of await redis.keys(`${prefix}*`)) {
        const type = await redis.type(key);
        const value =
          type === 'hash'
            ? await redis.hgetall(key)
            : type === 'string'
              ? await redis.get(key)
              : type === 'list'
                ? await redis.lrange(key, 0, -1)
                : type === 'zset'
                  ? await redis.zrange(key, 0, -1)
                  : type === 'set'
                    ? await redis.smembers(key)
                    : type === 'stream'
                      ? await redis.xrange(key, '-', '+')
                      : '';
        dump.push(key, JSON.stringify(value));
      }
    }
    expect(dump.join('\n')).toContain('signup-welcome');
    const tables = [
      'accounts.accounts',
      'accounts.ledger',
      'accounts.operation_log',
      'mailer.deliveries',
      'config.owner_configs',
    ];
    for (const table of tables) {
      dump.push(JSON.stringify(await database.query(`SELECT * FROM ${table}`)));
    }
    for (const process of gw.processes.values()) {
      dump.push(process.output());
    }
    const everything = dump.join('\n');
    for (const secret of secrets) {
      expect(everything).not.toContain(secret);
    }
  });
});
