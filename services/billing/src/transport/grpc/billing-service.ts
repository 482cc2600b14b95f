import type { AsyncHandlers } from '@gw/kit';
import type { billing as pb } from '@gw/proto';
import { getUsage } from '../../domain/get-usage.js';
import type { UsageReads } from '../../domain/ports/usage.js';

export function billingHandlers(deps: { store: UsageReads }): AsyncHandlers<pb.BillingServiceServer> {
  return {
    getUsage: async (request) => ({
      rows: await getUsage(deps, {
        accountIds: request.accountIds,
        startDay: request.startDay,
        endDay: request.endDay,
        byAccount: request.byAccount,
      }),
    }),
  };
}
