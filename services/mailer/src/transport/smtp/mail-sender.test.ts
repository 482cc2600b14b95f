import { describe, expect, it } from 'vitest';
import { describeSmtpFailure } from './mail-sender.js';

describe('describeSmtpFailure', () => {
  it('says what failed in our words with the status code, never the server text', () => {
    const banner = 'BANNER-SECRET relay.internal.corp: mailbox full for ceo@corp';
    const cases: Array<[object, boolean, string]> = [
      [
        { code: 'EPROTOCOL', responseCode: 421, response: `421 ${banner}` },
        false,
        'the mail server deferred the message (421)',
      ],
      [
        { code: 'EENVELOPE', responseCode: 550, response: `550 ${banner}` },
        true,
        'the mail server rejected the message (550)',
      ],
      [
        { code: 'EAUTH', responseCode: 535, response: `535 ${banner}` },
        true,
        'the mail server refused the login (535)',
      ],
      [
        { code: 'ECONNECTION', message: `connect ECONNREFUSED ${banner}` },
        false,
        'could not connect to the mail server',
      ],
      [{ code: 'ETIMEDOUT' }, false, 'the mail server did not answer in time'],
      [{ code: 'ETLS' }, false, 'the TLS handshake with the mail server failed'],
      [new Error(banner), false, 'sending to the mail server failed'],
    ];
    for (const [error, permanent, text] of cases) {
      const described = describeSmtpFailure(error);
      expect(described).toEqual({ ok: false, permanent, error: text });
      expect(JSON.stringify(described)).not.toContain('BANNER');
    }
  });
});
