import { randomBytes } from 'node:crypto';
import { SUBJECTS } from '@gw/kit';
import { events } from '@gw/proto';
import { startGateway, type Gateway, MockUpstream } from '@gw/testkit';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, expect } from 'vitest';
import WebSocket from 'ws';

/** A realtime client through the gateway; resolves once the socket is open (or with the refusal status). */
export function openSession(
  gw: Gateway,
  model: string,
  key: string,
): Promise<
  { ws: WebSocket; frames: Array<Record<string, unknown>>; closed: Promise<number> } | { status: number }
> {
  const url = `${gw.baseUrl.replace('http', 'ws')}/v1/realtime?model=${encodeURIComponent(model)}`;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, {
      headers: { authorization: `Bearer ${key}`, 'openai-beta': 'realtime=v1' },
    });
    const frames: Array<Record<string, unknown>> = [];
    const closed = new Promise<number>((done) => ws.once('close', (code) => done(code)));
    ws.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString()) as Record<string, unknown>));
    ws.once('open', () => resolve({ ws, frames, closed }));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    ws.once('error', reject);
  });
}

export function session(result: Awaited<ReturnType<typeof openSession>>) {
  if ('status' in result) {
    throw new Error(`session refused with ${result.status}`);
  }
  return result;
}

export interface RealtimeGateway {
  gw: Gateway;
  mock: MockUpstream;
  /** Every gw.usage.recorded event so far. */
  usage: events.UsageRecorded[];
  /** An upstream secret no other test uses, named for its test. */
  secret: (name: string) => string;
  /** Adds a provider key at the mock upstream through POST /x-keys; answers its id. */
  addKey: (level: number, secretKey: string) => Promise<number>;
}

/**
 * Edge → proxy → mock upstream, every process real, started for the calling test file (in
 * `beforeAll`, stopped in `afterAll`); `gw` and `mock` are set once it started.
 */
export function useRealtimeGateway(): RealtimeGateway {
  let nc: NatsConnection | undefined;
  const rt = {
    usage: [] as events.UsageRecorded[],
    secret: (name: string) => `${name}-${randomBytes(12).toString('hex')}`,
    async addKey(level: number, secretKey: string): Promise<number> {
      const response = await rt.gw.request('/x-keys', {
        method: 'POST',
        json: { SecretKey: secretKey, Level: level, Provider: rt.mock.url },
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { Key: { ID: number } }).Key.ID;
    },
  } as RealtimeGateway;

  beforeAll(async () => {
    rt.mock = await MockUpstream.start();
    rt.gw = await startGateway({
      env: {
        GW_PUBLIC_URL: 'https://gateway.example.test',
        GW_KEY_STATE_PREFIX: `gw-test-${randomBytes(6).toString('hex')}:`,
      },
    });
    nc = await connect({ servers: rt.gw.natsUrl });
    const sub = nc.subscribe(SUBJECTS.usageRecorded);
    void (async () => {
      for await (const msg of sub) {
        rt.usage.push(events.UsageRecorded.fromJSON(JSON.parse(new TextDecoder().decode(msg.data))));
      }
    })();
  });

  afterAll(async () => {
    // beforeAll may have failed before assigning them.
    await nc?.drain();
    await (rt.gw as Gateway | undefined)?.stop();
    await (rt.mock as MockUpstream | undefined)?.stop();
  });

  return rt;
}
