import { STREAMS, SUBJECTS } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import { EVENT_KINDS, kindOf, streamOf, subjectMatches } from './catalog.js';

describe('subjectMatches', () => {
  it('follows NATS wildcards: * is one token, > one or more', () => {
    expect(subjectMatches('gw.account.changed.*', 'gw.account.changed.42')).toBe(true);
    expect(subjectMatches('gw.account.changed.*', 'gw.account.changed')).toBe(false);
    expect(subjectMatches('gw.account.changed.*', 'gw.account.changed.42.x')).toBe(false);
    expect(subjectMatches('gw.>', 'gw.usage.recorded')).toBe(true);
    expect(subjectMatches('gw.>', 'gw')).toBe(false);
    expect(subjectMatches('gw.usage.recorded', 'gw.usage.recorded')).toBe(true);
    expect(subjectMatches('gw.usage.recorded', 'gw.usage.recordedx')).toBe(false);
  });
});

describe('EVENT_KINDS', () => {
  it('decodes every subject declared in the kit', () => {
    const subjects = Object.values(SUBJECTS).map((subject) =>
      typeof subject === 'function' ? subject('7') : subject.replace('*', 'some_action'),
    );
    for (const subject of subjects) {
      expect(kindOf(subject), subject).toBeDefined();
    }
    expect(new Set(EVENT_KINDS.map((kind) => kind.type)).size).toBe(EVENT_KINDS.length);
  });

  it('knows which stream stores a subject', () => {
    expect(streamOf(SUBJECTS.usageRecorded)).toBe(STREAMS.usage.name);
    expect(streamOf(SUBJECTS.audit('add_user'))).toBe(STREAMS.audit.name);
    expect(streamOf(SUBJECTS.accountChanged(1))).toBeUndefined();
  });
});
