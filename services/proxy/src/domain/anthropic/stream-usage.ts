/**
 * The usage of an Anthropic Messages stream, which comes in two parts: `message_start` carries the
 * input counts (input, cache reads, cache writes) and a first output count, each `message_delta`
 * the counts so far (always the output; the input ones too on newer API versions). The last value
 * of each count wins. Only a `message_delta` makes the usage final: a stream cut before it was
 * not reported whole, and is estimated like any stream without usage (docs/decisions.md §2).
 */
const COUNTS = ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'];

type Json = Record<string, unknown>;

function record(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

export class AnthropicStreamUsage {
  private readonly counts: Json = {};

  /**
   * Takes one stream event; answers a body for `readUsage` (`{ usage }`, every count so far)
   * once the usage is final, undefined before that and for events without usage.
   */
  take(event: unknown): { usage: Json } | undefined {
    const value = record(event);
    const usage =
      value.type === 'message_start'
        ? record(record(value.message).usage)
        : value.type === 'message_delta'
          ? record(value.usage)
          : undefined;
    if (!usage) {
      return undefined;
    }
    for (const name of COUNTS) {
      if (usage[name] !== undefined && usage[name] !== null) {
        this.counts[name] = usage[name];
      }
    }
    return value.type === 'message_delta'
      ? { usage: { cache_read_input_tokens: 0, cache_creation_input_tokens: 0, ...this.counts } }
      : undefined;
  }
}

/** Whether a stream event is one of Anthropic's (its `type` names it). */
export function isAnthropicStreamEvent(event: unknown): boolean {
  const type = record(event).type;
  return typeof type === 'string' && /^(message|content_block)_/.test(type);
}

/** The text a Messages stream event adds (for an estimate when the usage never came). */
export function anthropicEventText(event: unknown): string {
  const delta = record(record(event).delta);
  return delta.type === 'text_delta' && typeof delta.text === 'string' ? delta.text : '';
}
