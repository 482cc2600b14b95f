import { createConnection, createServer, type Socket } from 'node:net';

export interface FaultProxy {
  port: number;
  /** Cuts every open connection and refuses new ones, as a store that went away. */
  cut(): void;
  /** Forwards new connections again. */
  restore(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on a free port in front of 127.0.0.1:<targetPort>, for fault injection without
 * touching the machine's shared servers: point a service at `port`, then `cut()` and `restore()`.
 */
export async function startFaultProxy(targetPort: number): Promise<FaultProxy> {
  const open = new Set<Socket>();
  let cut = false;
  const server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  const port = await new Promise<number>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
  return {
    port,
    cut() {
      cut = true;
      for (const socket of open) {
        socket.destroy();
      }
    },
    restore() {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) {
          socket.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
