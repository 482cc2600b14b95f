import { isTokenField } from '../limits.js';
import { imageSizeOf } from '../request.js';
import { createsObjects } from '../stored-objects.js';
import { holdServedCost } from './reserve-spend.js';
import { toUsageEvent, usageOfServedCall, type Usage } from '../usage.js';
import type { AdmittedCall, CallMeter, ServedBy } from './call.js';
import type { CallDeps } from '../ports/deps.js';

/**
 * Steps 5 and 6: a served call's usage becomes a `gw.usage.recorded` event in the durable outbox
 * (before anything else happens to it) and its tokens count in the call's token windows.
 * Endpoints that are not metered (model listings) emit nothing.
 */
export function callMeter(deps: CallDeps, call: AdmittedCall, served: ServedBy): CallMeter {
  const tokenWindows = call.windows.filter((window) => isTokenField(window.field));
  let exchanges = 0;
  const emit = async (
    usage: Usage,
    status: number,
    exchange: { partial: boolean; estimated: boolean; endsCall: boolean },
  ) => {
    if (call.endpoint.metering === 'none') {
      return;
    }
    void deps.limiter.addTokens(call.windows, usage.promptTokens + usage.completionTokens, Date.now());
    const event = toUsageEvent({
      accountId: call.caller.accountId,
      ownerId: call.caller.ownerId,
      modelRequested: call.request.model,
      modelServed: served.step.model,
      keyId: served.key.id,
      level: served.step.level,
      path: call.endpoint.path,
      status,
      usage,
      imageSize: imageSizeOf(call.request),
      latencyMs: Date.now() - call.startedAt,
      partial: exchange.partial,
      estimated: exchange.estimated,
    });
    holdServedCost(deps, call, event, { index: (exchanges += 1), endsCall: exchange.endsCall });
    try {
      await deps.outbox.append(event, call.requestId);
    } catch (error) {
      call.log.error(
        { err: error, eventId: event.eventId },
        'usage event could not be written to the outbox',
      );
    }
  };
  return {
    answered: async (relayed, status) => {
      if (createsObjects(call.endpoint.path) && relayed.createdIds.length > 0) {
        await deps.objects
          .record(call.caller.ownerId, relayed.createdIds, call.caller.accountId)
          .catch((error: unknown) => call.log.error({ err: error }, 'stored objects could not be recorded'));
      }
      const { usage, partial, estimated } = usageOfServedCall(call.request, relayed);
      // A whole answer is the call's only exchange: its hold releases the estimate too.
      await emit(usage, status, { partial, estimated, endsCall: true });
    },
    reported: (usage, status) => emit(usage, status, { partial: false, estimated: false, endsCall: false }),
    tokensLeft: async () => {
      if (tokenWindows.length === 0) {
        return true;
      }
      return (await deps.limiter.admit(tokenWindows, Date.now())).ok;
    },
  };
}
