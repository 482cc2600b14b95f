// The container health check of a gRPC service: exits 0 when the server at <host:port> reports
// SERVING on grpc.health.v1, else 1. docker-compose.yml runs it inside each image:
//   node --conditions=gw-dist node_modules/@gw/kit/dist/health-probe.js 127.0.0.1:50051
import { isServing } from './grpc-client.js';

const address = process.argv[2] ?? '';
if (!/^[^\s:]+:\d{1,5}$/.test(address)) {
  process.stderr.write('usage: health-probe.js <host:port>\n');
  process.exit(2);
}
// Health answers without the internal token (see grpc.ts), so the probe needs no secret.
process.exit((await isServing(address, '')) ? 0 : 1);
