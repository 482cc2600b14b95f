import { newId, type PricedUsage } from '@gw/kit';
import { countTokens } from 'gpt-tokenizer';
import type { events } from '@gw/proto';
import type { ParsedRequest } from './request.js';

/**
 * Token counts as upstreams report them (chat `usage`, responses `usage`, Anthropic-style
 * `usage`, images `data`, audio `duration`), read defensively: negative, non-finite or absurd values count as 0 and flag the
 * record.
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
  /** Audio metered by duration (transcription models that bill per second), in ms. */
  audioMs: number;
  /** Whether the upstream reported anything at all (explicit zeros included). */
  reported: boolean;
  /** A value was unreadable and clamped. */
  suspicious: boolean;
}

const MAX_TOKENS = 1e9;
const MAX_AUDIO_SECONDS = 1e7;

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
    audioMs: 0,
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

/**
 * Fills a Usage from a response body (or one SSE chunk, or one item of a large body's `data`)
 * when it carries a `usage` object or generated images. Images add up across calls.
 */
export function readUsage(body: unknown, into: Usage = emptyUsage()): Usage {
  const root = record(body);
  const usage = root.usage ?? record(root.response).usage;
  if (Array.isArray(root.data)) {
    const images = root.data.filter(
      (item) => record(item).b64_json !== undefined || record(item).url !== undefined,
    );
    if (images.length > 0) {
      into.imageCount += images.length;
      into.reported = true;
    }
  }
  if (!usage || typeof usage !== 'object') {
    return into;
  }
  const u = record(usage);
  into.reported = true;
  if (u.type === 'duration') {
    const seconds = u.seconds;
    if (
      typeof seconds !== 'number' ||
      !Number.isFinite(seconds) ||
      seconds < 0 ||
      seconds > MAX_AUDIO_SECONDS
    ) {
      into.suspicious = true;
    } else {
      into.audioMs = Math.round(seconds * 1000);
    }
    return into;
  }
  // Chat: *_tokens_details; responses: input/output_tokens_details; realtime: input/output_token_details.
  const promptDetails = record(u.prompt_tokens_details ?? u.input_tokens_details ?? u.input_token_details);
  const completionDetails = record(
    u.completion_tokens_details ?? u.output_tokens_details ?? u.output_token_details,
  );
  const completion = u.completion_tokens ?? u.output_tokens;
  into.promptTokens = count(
    into,
    u.prompt_tokens,
    u.input_tokens,
    completion === undefined ? u.total_tokens : undefined,
  );
  into.completionTokens = count(into, completion);
  into.cachedTokens = count(into, promptDetails.cached_tokens, u.cache_read_input_tokens);
  into.cacheWriteTokens = count(into, u.cache_creation_input_tokens, promptDetails.cache_write_tokens);
  if (
    u.prompt_tokens === undefined &&
    (u.cache_read_input_tokens ?? u.cache_creation_input_tokens) !== undefined
  ) {
    // Anthropic's input_tokens counts only the uncached input, beside the cache reads and
    // writes; the prompt everywhere else (and in pricing, which takes those out of it) holds them.
    into.promptTokens += into.cachedTokens + into.cacheWriteTokens;
  }
  into.reasoningTokens = count(into, completionDetails.reasoning_tokens);
  into.audioInTokens = count(into, promptDetails.audio_tokens);
  into.audioOutTokens = count(into, completionDetails.audio_tokens);
  into.imageInTokens = count(into, promptDetails.image_tokens);
  into.imageOutTokens = count(into, completionDetails.image_tokens);
  return into;
}

/**
 * Tokens of text when upstream reported no usage (docs/decisions.md §2), counted with the
 * o200k_base BPE (gpt-tokenizer); other vendors' tokenizers differ by a few percent. Characters
 * past the text kept are counted at four per token.
 */
export function estimateTokens(text: string, overflowChars = 0): number {
  return (text.length === 0 ? 0 : countTokens(text)) + Math.ceil(overflowChars / 4);
}

/** What relaying an answer saw: the usage upstream reported and how the answer ended. */
export interface RelayedAnswer {
  usage: Usage;
  /** Ids of what the answer says upstream stored (a response, its conversation). */
  createdIds: string[];
  completed: boolean;
  clientLeft: boolean;
  /**
   * Answer text seen (bounded) and the characters past it, for an estimate: asked for only when
   * upstream reported no usage, since reading it may mean parsing the stream's held events.
   */
  seen(): { text: string; overflowChars: number };
}

/** The text of the request a prompt estimate counts: system, messages, prompt, input, or a form's prompt. */
function requestText(request: ParsedRequest): string {
  if (request.json) {
    const { system, messages, prompt, input, instructions, query, documents } = request.json;
    const parts = [system, messages, prompt, input, instructions, query, documents].filter(
      (part) => part !== undefined,
    );
    return parts.map((part) => (typeof part === 'string' ? part : JSON.stringify(part))).join('\n');
  }
  return request.form?.find((part) => part.name === 'prompt')?.data.toString('utf8') ?? '';
}

/**
 * The usage to charge for a served call. Without usage from upstream, the prompt and the answer
 * text are counted with the tokenizer, audio heard is the uploaded file's duration, and the call
 * is flagged estimated; never zero tokens unflagged. `partial` says the answer did not reach the
 * client whole.
 */
export function usageOfServedCall(
  request: ParsedRequest,
  relayed: RelayedAnswer,
): { usage: Usage; partial: boolean; estimated: boolean } {
  const partial = !relayed.completed || relayed.clientLeft;
  if (relayed.usage.reported) {
    return { usage: relayed.usage, partial, estimated: false };
  }
  const seen = relayed.seen();
  return {
    usage: {
      ...relayed.usage,
      promptTokens: estimateTokens(requestText(request)),
      completionTokens: estimateTokens(seen.text, seen.overflowChars),
      // Audio heard: upstream said nothing (a `text`, `srt` or `vtt` answer, any translation), so
      // the duration of the uploaded file, read before the call, is what was served.
      audioMs: request.endpoint.metering === 'audio' ? request.audioMs : relayed.usage.audioMs,
    },
    partial,
    estimated: true,
  };
}

/** What a call's price depends on besides its usage. */
export interface PricedCall {
  path: string;
  modelRequested: string;
  modelServed: string;
  imageSize: string;
}

/**
 * The fields of a usage event its price depends on, as billing prices them: all a call's estimate
 * needs, without the event's id, time and the rest.
 */
export function pricedUsage(call: PricedCall, usage: Usage): PricedUsage {
  return {
    modelRequested: call.modelRequested,
    modelServed: call.modelServed,
    path: call.path,
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
    audioMs: BigInt(usage.audioMs),
  };
}

/** One `gw.usage.recorded` event for a served call. */
export function toUsageEvent(
  call: PricedCall & {
    accountId: string;
    ownerId: string;
    keyId: string;
    level: number;
    status: number;
    usage: Usage;
    latencyMs: number;
    partial: boolean;
    estimated: boolean;
  },
): events.UsageRecorded {
  const priced = pricedUsage(call, call.usage);
  // Field by field, not spread: see CONTRIBUTING.md (objects on the per-call path).
  return {
    eventId: newId('event'),
    accountId: BigInt(call.accountId),
    ownerId: BigInt(call.ownerId),
    keyId: BigInt(call.keyId),
    level: call.level,
    status: call.status,
    modelRequested: priced.modelRequested,
    modelServed: priced.modelServed,
    path: priced.path,
    promptTokens: priced.promptTokens,
    completionTokens: priced.completionTokens,
    cachedTokens: priced.cachedTokens,
    cacheWriteTokens: priced.cacheWriteTokens,
    reasoningTokens: priced.reasoningTokens,
    audioInTokens: priced.audioInTokens,
    audioOutTokens: priced.audioOutTokens,
    imageInTokens: priced.imageInTokens,
    imageOutTokens: priced.imageOutTokens,
    imageCount: priced.imageCount,
    imageSize: priced.imageSize,
    callCount: priced.callCount,
    audioMs: priced.audioMs,
    latencyMs: BigInt(Math.max(0, Math.round(call.latencyMs))),
    at: new Date().toISOString(),
    partial: call.partial,
    estimated: call.estimated,
  };
}
