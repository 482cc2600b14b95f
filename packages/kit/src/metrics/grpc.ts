import * as grpc from '@grpc/grpc-js';
import { METRIC } from './names.js';
import type { Metrics } from './registry.js';

/** Status names as label values (`OK`, `NOT_FOUND`, …), from grpc-js's own enum. */
const STATUS_NAMES = new Map(
  Object.entries(grpc.status).flatMap(([name, code]) => (typeof code === 'number' ? [[code, name]] : [])),
);

/**
 * `gw_grpc_server_handled_total{grpc_service,grpc_method,grpc_code}` and the handling latency per method, for
 * every RPC of every service registered through GrpcServer.add (the health service is not counted:
 * probes would drown the traffic).
 */
export class GrpcServerMetrics {
  private readonly handled;
  private readonly seconds;

  constructor(metrics: Metrics) {
    this.handled = metrics.counter(
      METRIC.grpcServerHandled,
      'gRPC calls answered, by gRPC service, method and status code',
      ['grpc_service', 'grpc_method', 'grpc_code'],
    );
    this.seconds = metrics.histogram(
      METRIC.grpcServerHandling,
      'gRPC call latency by gRPC service and method',
      ['grpc_service', 'grpc_method'],
    );
  }

  observe(service: string, method: string, code: grpc.status, seconds: number): void {
    this.handled.labels(service, method, STATUS_NAMES.get(code) ?? String(code)).inc();
    this.seconds.labels(service, method).observe(seconds);
  }
}
