import { newId } from '@gw/kit';
import { countTokens } from 'gpt-tokenizer';
import type { events } from '@gw/proto';
import type { ParsedRequest } from './request.js';

/**
 * Token counts as upstreams report them (chat `usage`, responses `usage`, images `data`), read
 * defensively: negative, non-finite or absurd values count as 0 and flag the record.
 */

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  audioInTokens: number;
  audioOutTokens: number;
  imageInTokens: number;
  imageOutTokens: number;
  imageCount: number;
  /** Whether the upstream reported anything at all (explicit zeros included). */
  reported: boolean;
  /** A value was unreadable and clamped. */
  suspicious: boolean;
}

const MAX_TOKENS = 1e9;

export function emptyUsage(): Usage {
  return {
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    audioInTokens: 0,
    audioOutTokens: 0,
    imageInTokens: 0,
    imageOutTokens: 0,
    imageCount: 0,
    reported: false,
    suspicious: false,
  };
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** Reads one count: absent → 0; unreadable → 0 and suspicious. */
function count(usage: Usage, ...values: unknown[]): number {
  for (const value of values) {
    if (value === undefined || value === null) {
      continue;
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_TOKENS) {
      usage.suspicious = true;
      return 0;
    }
    return Math.floor(value);
  }
  return 0;
}

/** Fills a Usage from a response body (or one SSE chunk) when it carries a `usage` object. */
export function readUsage(body: unknown, into: Usage = emptyUsage()): Usage {
  const root = record(body);
  const usage = root.usage ?? record(root.response).usage;
  const images =
    Array.isArray(root.data) &&
    root.data.some((item) => record(item).b64_json !== undefined || record(item).url !== undefined);
  if (images) {
    into.imageCount = (root.data as unknown[]).length;
    into.reported = true;
  }
  if (!usage || typeof usage !== 'object') {
    return into;
  }
  const u = record(usage);
  // Chat: *_tokens_details; responses: input/output_tokens_details; realtime: input/output_token_details.
  const promptDetails = record(u.prompt_tokens_details ?? u.input_tokens_details ?? u.input_token_details);
  const completionDetails = record(
    u.completion_tokens_details ?? u.output_tokens_details ?? u.output_token_details,
  );
  into.reported = true;
  into.promptTokens = count(into, u.prompt_tokens, u.input_tokens);
  into.completionTokens = count(into, u.completion_tokens, u.output_tokens);
  into.cachedTokens = count(into, promptDetails.cached_tokens, u.cache_read_input_tokens);
  into.cacheWriteTokens = count(into, u.cache_creation_input_tokens, promptDetails.cache_write_tokens);
  into.reasoningTokens = count(into, completionDetails.reasoning_tokens);
  into.audioInTokens = count(into, promptDetails.audio_tokens);
  into.audioOutTokens = count(into, completionDetails.audio_tokens);
  into.imageInTokens = count(into, promptDetails.image_tokens);
  into.imageOutTokens = count(into, completionDetails.image_tokens);
  return into;
}

/**
 * Tokens of text we relayed when upstream never reported usage (docs/decisions.md §2), counted
 * with the o200k_base BPE (gpt-tokenizer); other vendors' tokenizers differ by a few percent.
 */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : countTokens(text);
}

/** What relaying an answer saw: the usage upstream reported and how the answer ended. */
export interface RelayedAnswer {
  usage: Usage;
  completed: boolean;
  clientLeft: boolean;
  /** Completion text relayed to the client, for the estimate when upstream reports no usage. */
  relayedText: string;
}

/**
 * The usage to charge for a served call. Without usage from upstream, prompt + relayed
 * completion are counted with the tokenizer and the call is flagged partial (docs/decisions.md §2).
 */
export function usageOfServedCall(
  request: ParsedRequest,
  relayed: RelayedAnswer,
): { usage: Usage; partial: boolean } {
  const { usage, completed, clientLeft, relayedText } = relayed;
  if (!usage.reported && (request.stream || relayedText)) {
    const json = request.json ?? {};
    return {
      usage: {
        ...usage,
        promptTokens: estimateTokens(JSON.stringify(json.messages ?? json.prompt ?? json.input ?? '')),
        completionTokens: estimateTokens(relayedText),
      },
      partial: true,
    };
  }
  return { usage, partial: !completed || clientLeft };
}

/** One `gw.usage.recorded` event for a served call. */
export function toUsageEvent(call: {
  accountId: string;
  ownerId: string;
  modelRequested: string;
  modelServed: string;
  keyId: string;
  level: number;
  path: string;
  status: number;
  usage: Usage;
  imageSize: string;
  latencyMs: number;
  partial: boolean;
}): events.UsageRecorded {
  const { usage } = call;
  return {
    eventId: newId('event'),
    accountId: BigInt(call.accountId),
    ownerId: BigInt(call.ownerId),
    modelRequested: call.modelRequested,
    modelServed: call.modelServed,
    keyId: BigInt(call.keyId),
    level: call.level,
    path: call.path,
    status: call.status,
    promptTokens: BigInt(usage.promptTokens),
    completionTokens: BigInt(usage.completionTokens),
    cachedTokens: BigInt(usage.cachedTokens),
    cacheWriteTokens: BigInt(usage.cacheWriteTokens),
    reasoningTokens: BigInt(usage.reasoningTokens),
    audioInTokens: BigInt(usage.audioInTokens),
    audioOutTokens: BigInt(usage.audioOutTokens),
    imageInTokens: BigInt(usage.imageInTokens),
    imageOutTokens: BigInt(usage.imageOutTokens),
    imageCount: usage.imageCount,
    imageSize: call.imageSize,
    callCount: 1,
    latencyMs: BigInt(Math.max(0, Math.round(call.latencyMs))),
    at: new Date().toISOString(),
    partial: call.partial,
  };
}
