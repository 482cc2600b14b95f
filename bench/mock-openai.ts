/**
 * The upstream of the request-path benchmarks (bench/peers, bench/soak): `POST
 * /v1/chat/completions` answered at once, as JSON with usage, or with `stream: true` as a few SSE
 * chunks, a usage chunk and `[DONE]` written back to back. It counts what it served and records
 * nothing else: the testkit's MockUpstream keeps every request (headers, body) in memory, which a
 * soak of minutes at full speed must not.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const USAGE = { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 };
const WORDS = ['hello', ' from', ' the bench mock'];
/** What a benchmark looks for to know an answer came from this mock, whole. */
export const ANSWER_MARK = { json: 'hello from the bench mock', stream: 'data: [DONE]' } as const;

export interface MockOpenAi {
  /** `http://127.0.0.1:<port>`, without `/v1`. */
  url: string;
  /** Chat completions answered so far. */
  served: () => number;
  stop: () => Promise<void>;
}

function completion(model: string) {
  return {
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: WORDS.join('') }, finish_reason: 'stop' }],
    usage: USAGE,
  };
}

/** The SSE body of a streamed completion: role, words, finish, usage, `[DONE]`. */
function streamEvents(model: string): string {
  const chunk = (choices: unknown[], usage: unknown = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices, usage })}\n\n`;
  return [
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
    ...WORDS.map((word) => chunk([{ index: 0, delta: { content: word }, finish_reason: null }])),
    chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
    chunk([], USAGE),
    'data: [DONE]\n\n',
  ].join('');
}

async function readBody(req: IncomingMessage): Promise<{ model?: unknown; stream?: unknown }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model?: unknown; stream?: unknown };
  } catch {
    return {};
  }
}

export async function startMockOpenAi(): Promise<MockOpenAi> {
  let served = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    if (req.method !== 'POST' || !req.url?.endsWith('/v1/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `the bench mock serves no ${req.method} ${req.url}` } }));
      return;
    }
    const model = typeof body.model === 'string' ? body.model : 'bench-model';
    served += 1;
    if (body.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(streamEvents(model));
      return;
    }
    const text = JSON.stringify(completion(model));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const server = createServer((req, res) => void handle(req, res));
  // Loopback only: benchmark traffic stays on this machine.
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served: () => served,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
