import { kindOf } from './catalog.js';

/** One received event, decoded: proto3 JSON of its events.proto message when the subject is known. */
export interface TailedEvent {
  subject: string;
  /** The events.proto message name, or undefined for a subject the catalog does not know. */
  type: string | undefined;
  event: Record<string, unknown>;
  /** JetStream stream and sequence, for an event replayed from a stream. */
  stream?: { name: string; sequence: number };
}

export interface EventFilter {
  owner?: string;
  account?: string;
}

/** Decodes a payload: known subjects through their message (unknown fields dropped), others as JSON. */
export function decodeEvent(subject: string, data: Uint8Array): TailedEvent {
  const text = new TextDecoder().decode(data);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { subject, type: undefined, event: { raw: text } };
  }
  const kind = kindOf(subject);
  if (!kind) {
    return { subject, type: undefined, event: json as Record<string, unknown> };
  }
  return {
    subject,
    type: kind.type,
    event: kind.codec.toJSON(kind.codec.fromJSON(json)) as Record<string, unknown>,
  };
}

/**
 * --owner keeps events whose payload names that owner; --account those that name that account
 * (as accountId, or as the operator or target of an audit entry). Both given: both must hold.
 */
export function matchesFilter(tailed: TailedEvent, filter: EventFilter): boolean {
  const { event } = tailed;
  if (filter.owner !== undefined && event.ownerId !== filter.owner) {
    return false;
  }
  if (filter.account !== undefined) {
    const named = [event.accountId, event.operatorId, event.targetId];
    if (!named.includes(filter.account)) {
      return false;
    }
  }
  return true;
}

function formatValue(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text);
}

/** `<at> <subject> <Type> key=value …`: the event's own time, else the time it was received. */
export function formatLine(tailed: TailedEvent, receivedAt: Date): string {
  const { at, ...fields } = tailed.event;
  const when = typeof at === 'string' && at !== '' ? at : receivedAt.toISOString();
  const pairs = Object.entries(fields).map(([key, value]) => `${key}=${formatValue(value)}`);
  return [when, tailed.subject, tailed.type ?? '(unknown subject)', ...pairs].join(' ');
}

/** One JSON object per line: subject, type, the stream position when replayed, and the event. */
export function formatJson(tailed: TailedEvent): string {
  return JSON.stringify(tailed);
}
