import { publishEvent, SUBJECTS, type NatsConnection } from '@gw/kit';
import { events } from '@gw/proto';
import type { LevelEvents } from '../../domain/ports.js';

/** `gw.level.switched.<owner>` on core NATS, for operators tailing events. */
export function natsLevelEvents(nc: NatsConnection, now: () => number = Date.now): LevelEvents {
  return {
    levelSwitched: (ownerId, level, until) =>
      publishEvent(nc, SUBJECTS.levelSwitched(ownerId), events.LevelSwitched, {
        ownerId: BigInt(ownerId),
        level,
        switchedBack: until === undefined,
        until: until === undefined ? '' : new Date(until).toISOString(),
        at: new Date(now()).toISOString(),
      }),
  };
}
