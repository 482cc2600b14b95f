import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Behaviour } from './mock-upstream.js';

const DEFAULT_USAGE = { prompt_tokens: 11, completion_tokens: 7 };

/** Headers a real upstream sends that describe the owner's key, never the gateway's caller. */
const OWNER_KEY_HEADERS = {
  'openai-organization': 'org-owner',
  'openai-project': 'proj-owner',
  'x-ratelimit-remaining-requests': '9999',
  'set-cookie': 'upstream-session=1',
};

/** One call the mock serves: its path as OpenAI names it, the model, the caller's key, its body. */
export interface MockCall {
  path: string;
  model: string;
  key: string;
  body: Record<string, unknown>;
}

/**
 * Answers one call as an OpenAI-style upstream would: models, embeddings, images, audio,
 * moderations, rerank, responses and completions as JSON; chat completions as JSON or SSE
 * (with the usage chunk when asked for), shaped by the key's behaviour.
 */
export async function answerCall(res: ServerResponse, call: MockCall, behaviour: Behaviour): Promise<void> {
  const { path, model, key, body } = call;
  const usage: NonNullable<Behaviour['usage']> = behaviour.usage ?? DEFAULT_USAGE;
  const usageBody = {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
  };

  if (path === '/v1/models') {
    res.writeHead(200, { 'content-type': 'application/json', ...OWNER_KEY_HEADERS }).end(
      JSON.stringify({
        object: 'list',
        data: [{ id: 'mock-model', object: 'model', created: 0, owned_by: 'mock' }],
      }),
    );
    return;
  }
  if (path === '/v1/embeddings') {
    res.writeHead(200, { 'content-type': 'application/json', ...OWNER_KEY_HEADERS }).end(
      JSON.stringify({
        object: 'list',
        model,
        data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2, 0.3] }],
        usage: { prompt_tokens: usage.prompt_tokens, total_tokens: usage.prompt_tokens },
      }),
    );
    return;
  }
  const json = (value: unknown) =>
    res
      .writeHead(200, { 'content-type': 'application/json', ...OWNER_KEY_HEADERS })
      .end(JSON.stringify(value));
  if (path === '/v1/images/generations' || path === '/v1/images/edits' || path === '/v1/images/variations') {
    const count = Number(body.n ?? 1);
    json({
      created: 0,
      data: Array.from({ length: count }, (_, i) => ({ url: `https://img.example/${i}.png` })),
    });
    return;
  }
  if (path === '/v1/audio/transcriptions' || path === '/v1/audio/translations') {
    // As OpenAI answers: `text`, `srt` and `vtt` as plain text, and a translation, with no usage;
    // a transcription's JSON with the seconds it bills.
    const format = typeof body.response_format === 'string' ? body.response_format : 'json';
    const text = `transcribed by ${model}`;
    if (format === 'text' || format === 'srt' || format === 'vtt') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', ...OWNER_KEY_HEADERS }).end(text);
    } else if (path === '/v1/audio/translations') {
      json({ text });
    } else {
      json({ text, usage: { type: 'duration', seconds: 3.5 } });
    }
    return;
  }
  if (path === '/v1/audio/speech') {
    res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(Buffer.alloc(2048, 1));
    return;
  }
  if (path === '/v1/moderations') {
    json({ id: 'modr-mock', model, results: [{ flagged: false }] });
    return;
  }
  if (path === '/v1/rerank') {
    json({ results: [{ index: 0, relevance_score: 0.9 }], usage: { total_tokens: usage.prompt_tokens } });
    return;
  }
  if (path === '/v1/responses' || path === '/v1/completions') {
    json({
      id: `${path === '/v1/responses' ? 'resp' : 'cmpl'}_${randomUUID().replaceAll('-', '')}`,
      object: path === '/v1/responses' ? 'response' : 'text_completion',
      model,
      output: [{ content: [{ type: 'output_text', text: 'hi' }] }],
      usage: usageBody,
    });
    return;
  }
  if (path !== '/v1/chat/completions') {
    res.writeHead(404, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        error: { message: 'unknown path', type: 'invalid_request_error', code: 'not_found' },
      }),
    );
    return;
  }
  if (body.stream !== true) {
    // A whole chat answer comes with its Content-Length; the other JSON answers here come
    // chunked, so the relay meets both.
    const answer = JSON.stringify({
      id: 'chatcmpl-mock',
      object: 'chat.completion',
      created: 0,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: `hello from ${key}`.padEnd(behaviour.answerBytes ?? 0, '.'),
          },
          finish_reason: 'stop',
        },
      ],
      usage: usageBody,
    });
    res
      .writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(answer),
        ...OWNER_KEY_HEADERS,
      })
      .end(answer);
    return;
  }

  const includeUsage =
    (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const base = { id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 0, model };
  const send = (payload: unknown) => res.write(`data: ${JSON.stringify(payload)}\n\n`);
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    ...OWNER_KEY_HEADERS,
  });
  const extra = includeUsage ? { usage: null } : {};
  send({
    ...base,
    choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    ...extra,
  });
  const count = behaviour.chunks ?? 3;
  for (let i = 0; i < count; i += 1) {
    if (behaviour.chunkDelayMs) {
      await new Promise((resolve) => setTimeout(resolve, behaviour.chunkDelayMs));
    }
    if (res.destroyed) {
      return;
    }
    if (behaviour.resetAfter !== undefined && i === behaviour.resetAfter) {
      res.socket?.resetAndDestroy();
      return;
    }
    send({
      ...base,
      choices: [{ index: 0, delta: { content: `tok${i} ` }, finish_reason: null }],
      ...extra,
    });
  }
  send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], ...extra });
  if (includeUsage && !behaviour.omitUsage) {
    send({ ...base, choices: [], usage: usageBody });
  }
  res.end('data: [DONE]\n\n');
}
