import { AppError, ErrorCode } from '@gw/kit';

/**
 * An OpenAI-style chat/completions request as an Anthropic Messages request (docs/api.md,
 * "Claude models through chat/completions"). Every field is either carried over or refused with
 * 400 naming it: nothing a client asked for is silently dropped.
 */

/** Anthropic requires `max_tokens`; a client that names none gets this many. */
export const DEFAULT_MAX_TOKENS = 4096;

type Json = Record<string, unknown>;
type Block = Json;

const refuse = (field: string, reason: string) =>
  new AppError(ErrorCode.InvalidRequest, `${field}: ${reason}`);
const untranslatable = (field: string) => refuse(field, "cannot be translated to Anthropic's Messages API");

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Fields taken as they are or translated below; a field outside this list is refused. */
const TRANSLATED = new Set([
  'model',
  'messages',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'stop',
  'stream',
  'stream_options',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'user',
]);

/** Fields accepted only at the value that asks for nothing Anthropic lacks. */
const NEUTRAL: Readonly<Record<string, (value: unknown) => boolean>> = {
  n: (value) => value === 1,
  logprobs: (value) => value === false,
  presence_penalty: (value) => value === 0,
  frequency_penalty: (value) => value === 0,
  store: (value) => value === false,
  modalities: (value) => Array.isArray(value) && value.length === 1 && value[0] === 'text',
  response_format: (value) => isObject(value) && value.type === 'text',
};

export function toMessagesRequest(chat: Json, model: string): Json {
  for (const [field, value] of Object.entries(chat)) {
    if (value === null || value === undefined || TRANSLATED.has(field)) {
      continue;
    }
    const neutral = NEUTRAL[field];
    if (!neutral?.(value)) {
      throw untranslatable(field);
    }
  }
  const { system, messages } = translateMessages(chat.messages);
  const out: Json = {
    model,
    max_tokens: maxTokens(chat),
    messages,
  };
  if (system.length > 0) {
    out.system = system;
  }
  for (const field of ['temperature', 'top_p'] as const) {
    if (chat[field] !== undefined && chat[field] !== null) {
      out[field] = chat[field];
    }
  }
  const stop = chat.stop;
  if (typeof stop === 'string') {
    out.stop_sequences = [stop];
  } else if (Array.isArray(stop)) {
    out.stop_sequences = stop;
  } else if (stop !== undefined && stop !== null) {
    throw refuse('stop', 'must be a string or an array of strings');
  }
  if (chat.stream === true) {
    out.stream = true;
  }
  if (typeof chat.user === 'string') {
    out.metadata = { user_id: chat.user };
  }
  if (chat.tools !== undefined && chat.tools !== null) {
    out.tools = translateTools(chat.tools);
  }
  const toolChoice = translateToolChoice(chat.tool_choice, chat.parallel_tool_calls);
  if (toolChoice) {
    out.tool_choice = toolChoice;
  }
  return out;
}

function maxTokens(chat: Json): number {
  const field = chat.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens';
  const value = chat[field];
  if (value === undefined || value === null) {
    return DEFAULT_MAX_TOKENS;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw refuse(field, 'must be a positive integer');
  }
  return value;
}

/** System and developer messages become `system`; tool answers join the user turn after them. */
function translateMessages(value: unknown): { system: Block[]; messages: Json[] } {
  if (!Array.isArray(value) || value.length === 0) {
    throw refuse('messages', 'must be a non-empty array');
  }
  const system: Block[] = [];
  const messages: Array<{ role: 'user' | 'assistant'; content: Block[] }> = [];
  const append = (role: 'user' | 'assistant', blocks: Block[]) => {
    const last = messages.at(-1);
    if (last?.role === role) {
      last.content.push(...blocks);
    } else {
      messages.push({ role, content: blocks });
    }
  };
  value.forEach((message: unknown, i) => {
    const at = `messages[${i}]`;
    if (!isObject(message)) {
      throw refuse(at, 'must be an object');
    }
    if (message.name !== undefined) {
      throw untranslatable(`${at}.name`);
    }
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...textBlocks(message.content, `${at}.content`));
        return;
      case 'user':
        append('user', userBlocks(message.content, `${at}.content`));
        return;
      case 'assistant':
        append('assistant', assistantBlocks(message, at));
        return;
      case 'tool':
        append('user', [toolResult(message, at)]);
        return;
      default:
        throw refuse(`${at}.role`, 'must be system, developer, user, assistant or tool');
    }
  });
  return { system, messages };
}

/** Text content only: a string or text parts. */
function textBlocks(content: unknown, at: string): Block[] {
  if (typeof content === 'string') {
    return content === '' ? [] : [{ type: 'text', text: content }];
  }
  if (!Array.isArray(content)) {
    throw refuse(at, 'must be a string or an array of text parts');
  }
  return content.map((part: unknown, j) => {
    if (!isObject(part) || part.type !== 'text' || typeof part.text !== 'string') {
      throw untranslatable(`${at}[${j}]`);
    }
    return { type: 'text', text: part.text };
  });
}

function userBlocks(content: unknown, at: string): Block[] {
  if (typeof content === 'string') {
    return [{ type: 'text', text: content }];
  }
  if (!Array.isArray(content)) {
    throw refuse(at, 'must be a string or an array of content parts');
  }
  return content.map((part: unknown, j) => {
    const here = `${at}[${j}]`;
    if (isObject(part) && part.type === 'text' && typeof part.text === 'string') {
      return { type: 'text', text: part.text };
    }
    if (isObject(part) && part.type === 'image_url') {
      return imageBlock(part.image_url, `${here}.image_url`);
    }
    throw untranslatable(
      isObject(part) && typeof part.type === 'string' ? `${here}.type ${part.type}` : here,
    );
  });
}

const DATA_URL = /^data:(image\/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/=]+)$/;

/** A data URL becomes a base64 source, an https URL a URL source; `detail` other than auto is refused. */
function imageBlock(image: unknown, at: string): Block {
  const url = isObject(image) ? image.url : undefined;
  if (typeof url !== 'string') {
    throw refuse(`${at}.url`, 'is required');
  }
  if (isObject(image) && image.detail !== undefined && image.detail !== 'auto') {
    throw untranslatable(`${at}.detail`);
  }
  const data = DATA_URL.exec(url);
  if (data) {
    return { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } };
  }
  if (url.startsWith('https://')) {
    return { type: 'image', source: { type: 'url', url } };
  }
  throw refuse(`${at}.url`, 'must be an https URL or a base64 data URL of a png, jpeg, gif or webp image');
}

function assistantBlocks(message: Json, at: string): Block[] {
  for (const field of Object.keys(message)) {
    if (!['role', 'content', 'tool_calls', 'refusal'].includes(field)) {
      throw untranslatable(`${at}.${field}`);
    }
  }
  const blocks: Block[] =
    message.content === null || message.content === undefined
      ? []
      : textBlocks(message.content, `${at}.content`);
  const calls = message.tool_calls ?? [];
  if (!Array.isArray(calls)) {
    throw refuse(`${at}.tool_calls`, 'must be an array');
  }
  calls.forEach((call: unknown, j) => {
    const here = `${at}.tool_calls[${j}]`;
    const fn = isObject(call) ? call.function : undefined;
    if (!isObject(call) || call.type !== 'function' || !isObject(fn) || typeof fn.name !== 'string') {
      throw refuse(here, 'must be a function call with a name');
    }
    if (typeof call.id !== 'string') {
      throw refuse(`${here}.id`, 'is required');
    }
    let input: unknown;
    try {
      input = JSON.parse(typeof fn.arguments === 'string' && fn.arguments !== '' ? fn.arguments : '{}');
    } catch {
      throw refuse(`${here}.function.arguments`, 'must be a JSON object');
    }
    if (!isObject(input)) {
      throw refuse(`${here}.function.arguments`, 'must be a JSON object');
    }
    blocks.push({ type: 'tool_use', id: call.id, name: fn.name, input });
  });
  if (blocks.length === 0) {
    throw refuse(`${at}.content`, 'an assistant message needs content or tool_calls');
  }
  return blocks;
}

function toolResult(message: Json, at: string): Block {
  if (typeof message.tool_call_id !== 'string') {
    throw refuse(`${at}.tool_call_id`, 'is required');
  }
  const content = message.content;
  return {
    type: 'tool_result',
    tool_use_id: message.tool_call_id,
    content: typeof content === 'string' ? content : textBlocks(content, `${at}.content`),
  };
}

function translateTools(tools: unknown): Json[] {
  if (!Array.isArray(tools)) {
    throw refuse('tools', 'must be an array');
  }
  return tools.map((tool: unknown, i) => {
    const fn = isObject(tool) ? tool.function : undefined;
    if (!isObject(tool) || tool.type !== 'function' || !isObject(fn) || typeof fn.name !== 'string') {
      throw untranslatable(`tools[${i}]`);
    }
    if (fn.strict === true) {
      throw untranslatable(`tools[${i}].function.strict`);
    }
    return {
      name: fn.name,
      ...(typeof fn.description === 'string' && { description: fn.description }),
      input_schema: isObject(fn.parameters) ? fn.parameters : { type: 'object', properties: {} },
    };
  });
}

function translateToolChoice(choice: unknown, parallel: unknown): Json | undefined {
  let out: Json | undefined;
  if (choice === 'auto') {
    out = { type: 'auto' };
  } else if (choice === 'none') {
    out = { type: 'none' };
  } else if (choice === 'required') {
    out = { type: 'any' };
  } else if (isObject(choice) && choice.type === 'function' && isObject(choice.function)) {
    out = { type: 'tool', name: choice.function.name };
  } else if (choice !== undefined && choice !== null) {
    throw untranslatable('tool_choice');
  }
  if (parallel === false) {
    out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  } else if (parallel !== undefined && parallel !== null && parallel !== true) {
    throw refuse('parallel_tool_calls', 'must be a boolean');
  }
  return out;
}
