import { describe, expect, it } from 'vitest';
import { decodeEvent, formatJson, formatLine, matchesFilter } from './format.js';

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const received = new Date('2026-01-02T03:04:05.000Z');

describe('decodeEvent', () => {
  it('decodes a known subject through its events.proto message, dropping unknown fields', () => {
    const tailed = decodeEvent(
      'gw.account.changed.42',
      encode({ accountId: '42', reason: 'rotated', keyHash: 'ab12', at: '2026-01-01T00:00:00Z', extra: 1 }),
    );
    expect(tailed).toEqual({
      subject: 'gw.account.changed.42',
      type: 'AccountChanged',
      event: { accountId: '42', reason: 'rotated', keyHash: 'ab12', at: '2026-01-01T00:00:00Z' },
    });
  });

  it('keeps the JSON of a subject it does not know, and the text of a payload that is not JSON', () => {
    expect(decodeEvent('gw.future.thing', encode({ a: 1 }))).toEqual({
      subject: 'gw.future.thing',
      type: undefined,
      event: { a: 1 },
    });
    expect(decodeEvent('gw.future.thing', new TextEncoder().encode('not json')).event).toEqual({
      raw: 'not json',
    });
  });
});

describe('formatLine', () => {
  it('reads as time, subject, type and key=value pairs, quoting values with spaces', () => {
    const tailed = decodeEvent(
      'gw.audit.add_user',
      encode({
        action: 'add_user',
        operatorId: '1',
        targetId: '9',
        details: 'created alice01',
        at: '2026-01-01T00:00:00Z',
      }),
    );
    expect(formatLine(tailed, received)).toBe(
      '2026-01-01T00:00:00Z gw.audit.add_user AuditRecorded action=add_user operatorId=1 targetId=9 details="created alice01"',
    );
  });

  it('uses the time of receipt when the event carries none', () => {
    expect(
      formatLine(decodeEvent('gw.keys.changed.3', encode({ ownerId: '3', version: '5' })), received),
    ).toBe('2026-01-02T03:04:05.000Z gw.keys.changed.3 KeysChanged ownerId=3 version=5');
  });
});

describe('formatJson', () => {
  it('prints one JSON object with the subject, the type and the decoded event', () => {
    const tailed = {
      ...decodeEvent('gw.config.updated.3', encode({ ownerId: '3', version: '2' })),
      stream: undefined,
    };
    expect(JSON.parse(formatJson(tailed))).toEqual({
      subject: 'gw.config.updated.3',
      type: 'ConfigUpdated',
      event: { ownerId: '3', version: '2' },
    });
  });
});

describe('matchesFilter', () => {
  const usage = decodeEvent('gw.usage.recorded', encode({ accountId: '9', ownerId: '3' }));
  const audit = decodeEvent('gw.audit.add_user', encode({ operatorId: '3', targetId: '9' }));
  const account = decodeEvent('gw.account.changed.9', encode({ accountId: '9' }));

  it('keeps events that name the owner', () => {
    expect(matchesFilter(usage, { owner: '3' })).toBe(true);
    expect(matchesFilter(usage, { owner: '4' })).toBe(false);
    expect(matchesFilter(account, { owner: '3' })).toBe(false);
  });

  it('keeps events that name the account, as the account or as operator or target', () => {
    expect(matchesFilter(usage, { account: '9' })).toBe(true);
    expect(matchesFilter(audit, { account: '9' })).toBe(true);
    expect(matchesFilter(audit, { account: '3' })).toBe(true);
    expect(matchesFilter(account, { account: '8' })).toBe(false);
    expect(matchesFilter(usage, { owner: '3', account: '8' })).toBe(false);
  });
});
