import WebSocket, { WebSocketServer, type RawData } from 'ws';

let clientServer: WebSocketServer | undefined;

/**
 * Accepts clients' realtime sockets (created once, with the process's frame bound): a frame over
 * `maxFrameBytes` is never buffered, the session closes (1009) instead.
 */
export function clientSockets(maxFrameBytes: number): WebSocketServer {
  clientServer ??= new WebSocketServer({ noServer: true, maxPayload: maxFrameBytes });
  return clientServer;
}

/** More than this many bytes sent but not yet written out: the sending side pauses reading. */
const HIGH_WATER = 4 * 1024 * 1024;

/**
 * Sends frames to `to`, pausing `from` while too much waits to be written (a slow reader on
 * either side never makes the proxy buffer without bound), and resuming once it drained.
 */
export function framePipe(from: WebSocket, to: WebSocket): (data: RawData, isBinary: boolean) => void {
  let waiting = 0;
  return (data, isBinary) => {
    if (to.readyState !== WebSocket.OPEN) {
      return;
    }
    const size = frameSize(data);
    waiting += size;
    to.send(data, { binary: isBinary }, () => {
      waiting -= size;
      if (waiting <= HIGH_WATER / 2 && from.isPaused) {
        from.resume();
      }
    });
    if (waiting > HIGH_WATER && !from.isPaused) {
      from.pause();
    }
  };
}

export function frameSize(data: RawData): number {
  return Array.isArray(data) ? data.reduce((total, part) => total + part.length, 0) : data.byteLength;
}

export function frameText(data: RawData): string {
  if (Array.isArray(data)) {
    return Buffer.concat(data).toString('utf8');
  }
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}
