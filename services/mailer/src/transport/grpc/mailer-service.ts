import type { AsyncHandlers } from '@gw/kit';
import type { mailer as pb } from '@gw/proto';
import type { DeliveryLog } from '../../domain/ports/delivery-log.js';

/** Thin gRPC adapter: the delivery log, oldest attempt first. */
export function mailerHandlers(log: DeliveryLog): AsyncHandlers<pb.MailerServiceServer> {
  return {
    listDeliveries: async (request) => {
      const rows = await log.list({ recipient: request.recipient, jobId: request.jobId });
      return {
        deliveries: rows.map((row) => ({
          jobId: row.jobId,
          template: row.template,
          recipient: row.recipient,
          status: row.status,
          at: row.at.toISOString(),
          attempt: row.attempt,
          error: row.error,
          transport: row.transport,
        })),
      };
    },
  };
}
