import { describe, expect, it } from 'vitest';
import { mailRouteOf, senderOf } from './mail-route.js';
import { mailerPolicy } from './policy.js';

const bare = mailerPolicy({
  publicUrl: 'https://gw.example.net/',
  docsUrl: undefined,
  manageUrl: undefined,
  smtpUrl: undefined,
  from: undefined,
});
const withEnv = mailerPolicy({
  publicUrl: 'https://gw.example.net',
  docsUrl: 'https://docs.example.net',
  manageUrl: undefined,
  smtpUrl: 'smtps://relay%40corp:p%40ss@smtp.example.net',
  from: 'mail@example.net',
});

describe('mailRouteOf', () => {
  it("uses the owner's EMAIL_* settings first, with the default port of its TLS mode", () => {
    const values = {
      EMAIL_SMTP: 'smtp.owner.example',
      EMAIL_AUTH: 'me',
      EMAIL_PASS: 'pw',
      EMAIL_TLS: 'true',
    };
    expect(mailRouteOf(values, false, withEnv)).toEqual({
      kind: 'smtp',
      source: 'owner-smtp',
      host: 'smtp.owner.example',
      port: 465,
      secure: true,
      user: 'me',
      pass: 'pw',
      rootPolicy: false,
    });
    expect(mailRouteOf({ EMAIL_SMTP: 'h.example', EMAIL_PORT: '2525' }, true, bare)).toMatchObject({
      port: 2525,
      secure: false,
      rootPolicy: true,
    });
    expect(mailRouteOf({ EMAIL_SMTP: 'h.example' }, true, bare)).toMatchObject({ port: 587 });
  });

  it('falls back to MAIL_SMTP_URL, then to .eml files', () => {
    expect(mailRouteOf({}, false, withEnv)).toEqual({
      kind: 'smtp',
      source: 'env-smtp',
      host: 'smtp.example.net',
      port: 465,
      secure: true,
      user: 'relay@corp',
      pass: 'p@ss',
      rootPolicy: true,
    });
    expect(mailRouteOf({}, false, bare)).toEqual({ kind: 'eml' });
  });
});

describe('mailer policy and sender', () => {
  it('derives links and the sender from the public URL unless set', () => {
    expect(bare).toMatchObject({
      publicUrl: 'https://gw.example.net',
      docsUrl: 'https://gw.example.net/docs',
      manageUrl: 'https://gw.example.net/console/',
      defaultFrom: 'no-reply@gw.example.net',
    });
    expect(withEnv.docsUrl).toBe('https://docs.example.net');
    expect(senderOf({ SVC_MAIL: 'ops@owner.example' }, withEnv)).toBe('ops@owner.example');
    expect(senderOf({}, withEnv)).toBe('mail@example.net');
  });
});
