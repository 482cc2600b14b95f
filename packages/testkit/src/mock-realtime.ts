import type { WebSocket } from 'ws';
import type { Behaviour } from './mock-upstream.js';

/**
 * One realtime session on the mock upstream: session.created on open; response.create →
 * response.done with usage (after a flood of audio deltas when the key's behaviour asks for
 * one); session.update → session.updated. Every client frame is kept in `frames`.
 */
export function serveRealtimeSession(
  ws: WebSocket,
  model: string,
  behaviour: Behaviour,
  frames: Array<Record<string, unknown>>,
): void {
  ws.send(JSON.stringify({ type: 'session.created', session: { model } }));
  ws.on('message', (data) => {
    const frame = JSON.parse(Buffer.from(data as Buffer).toString('utf8')) as {
      type?: string;
      session?: unknown;
    };
    frames.push(frame);
    if (frame.type === 'response.create' && behaviour.floodBytes) {
      void flood(ws, behaviour.floodBytes).then(() =>
        ws.send(
          JSON.stringify({
            type: 'response.done',
            response: { usage: { input_tokens: 1, output_tokens: 1 } },
          }),
        ),
      );
    } else if (frame.type === 'response.create') {
      ws.send(
        JSON.stringify({
          type: 'response.done',
          response: {
            status: 'completed',
            usage: {
              total_tokens: 30,
              input_tokens: 10,
              output_tokens: 20,
              input_token_details: { cached_tokens: 2, audio_tokens: 3 },
              output_token_details: { audio_tokens: 5 },
            },
          },
        }),
      );
    } else if (frame.type === 'session.update') {
      ws.send(JSON.stringify({ type: 'session.updated', session: frame.session }));
    }
  });
}

/** Sends `bytes` of realtime audio deltas, waiting whenever the socket holds too much unsent. */
async function flood(ws: WebSocket, bytes: number): Promise<void> {
  const chunk = JSON.stringify({ type: 'response.audio.delta', delta: 'A'.repeat(64 * 1024) });
  for (let sent = 0; sent < bytes && ws.readyState === ws.OPEN; sent += chunk.length) {
    await new Promise<void>((resolve) => ws.send(chunk, () => resolve()));
  }
}
