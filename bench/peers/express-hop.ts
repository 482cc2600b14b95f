/**
 * The Express baseline of bench/peers: one Express 5 + http-proxy-middleware hop in front of the
 * mock upstream, with kept-alive upstream connections as the gateway has. Started by
 * bench/peers/run.ts as its own process:
 *
 *   node --import tsx bench/peers/express-hop.ts <port> <upstream-url>
 */
import { Agent } from 'node:http';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';

const [port, target] = process.argv.slice(2);
if (port === undefined || target === undefined) {
  throw new Error('usage: express-hop.ts <port> <upstream-url>');
}
const app = express();
app.use(createProxyMiddleware({ target, agent: new Agent({ keepAlive: true }) }));
app.listen(Number(port), '127.0.0.1', () => process.stdout.write(`express hop on ${port} → ${target}\n`));
