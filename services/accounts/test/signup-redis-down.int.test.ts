import { spawn, type ChildProcess } from 'node:child_process';
import {
  addressesOf,
  freePort,
  startGateway,
  startSmtpSink,
  waitFor,
  type Gateway,
  type SmtpSink,
} from '@gw/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fresh, PUBLIC_URL, verificationOf } from './signup-helpers.js';

describe('self-signup while Redis is down', () => {
  let gw: Gateway;
  let sink: SmtpSink;
  let redisProcess: ChildProcess | undefined;
  let redisPort: number;

  const startRedis = async () => {
    redisProcess = spawn(
      'redis-server',
      ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const probe = new Redis(`redis://127.0.0.1:${redisPort}`, { lazyConnect: true, maxRetriesPerRequest: 0 });
    probe.on('error', () => undefined); // refused until the server is up: waitFor retries
    await waitFor(async () => Boolean(await probe.ping()), 'private redis-server');
    probe.disconnect();
  };
  const stopRedis = async () => {
    const child = redisProcess;
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  };

  beforeAll(async () => {
    redisPort = await freePort();
    await startRedis();
    sink = await startSmtpSink();
    gw = await startGateway({
      env: {
        SIGN_ENABLE: 'true',
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        MAIL_SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
        GW_PUBLIC_URL: PUBLIC_URL,
      },
    });
  });

  afterAll(async () => {
    await gw.stop();
    await stopRedis();
    await sink.close();
  });

  it('answers 503 and sends nothing while Redis is down; a new code works once it is back', async () => {
    await stopRedis();
    const email = fresh('down');
    const refused = await gw.request('/x-sign', { method: 'POST', key: null, json: { email } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    expect(await refused.json()).toEqual({ success: false, message: 'Sign-up is temporarily unavailable' });
    const verify = await gw.request('/x-sign/verify', {
      method: 'POST',
      key: null,
      json: { email, code: '123456' },
    });
    expect(verify.status).toBe(503);
    const page = await gw.request('/x-sign/activate?token=' + 'B'.repeat(43), { key: null });
    expect(page.status).toBe(503);
    expect(await page.text()).toContain('Sign-up is temporarily unavailable');
    expect(sink.connections()).toBe(0);
    const listed = await gw.request(`/x-dna?email=${encodeURIComponent(email)}`);
    expect(((await listed.json()) as { total: number }).total).toBe(0);

    // Redis restarts empty (no persistence here): the services reconnect and a new code is sent.
    await startRedis();
    await waitFor(async () => {
      const response = await gw.request('/x-sign', { method: 'POST', key: null, json: { email } });
      return response.status === 200;
    }, 'signup after Redis returned');
    const mail = await sink.waitForMessage((m) => addressesOf(m.to).includes(email));
    expect(verificationOf(mail).code).toMatch(/^\d{6}$/);
    for (const name of ['accounts', 'mailer', 'edge']) {
      expect(gw.processes.get(name)?.child.exitCode).toBeNull();
    }
  });

  it('leaves nothing behind of a signup answered 503 while Redis was frozen (SIGSTOP)', async () => {
    const email = fresh('frozen');
    redisProcess?.kill('SIGSTOP');
    try {
      const refused = await gw.request('/x-sign', { method: 'POST', key: null, json: { email } });
      expect(refused.status).toBe(503);
    } finally {
      redisProcess?.kill('SIGCONT');
    }
    // Once Redis runs again it executes what was queued on the connection before it froze: the
    // refused signup must not be stored, so the address is not told to wait for a mail never sent.
    const again = await gw.request('/x-sign', { method: 'POST', key: null, json: { email } });
    expect(again.status).toBe(200);
    const mail = await sink.waitForMessage((m) => addressesOf(m.to).includes(email));
    expect(verificationOf(mail).code).toMatch(/^\d{6}$/);
  });
});
