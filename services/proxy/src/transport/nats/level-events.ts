import { METRIC, publishEvent, serviceMetrics, SUBJECTS, type NatsConnection } from '@gw/kit';
import { events } from '@gw/proto';
import type { LevelEvents } from '../../domain/ports/level-events.js';

/** Counted once per switch: only the replica that won the switch (or the switch back) announces it. */
const levelSwitches = serviceMetrics().counter(
  METRIC.levelSwitches,
  'Levels switched to their SWITCH_OVER backup (direction=backup) or back after the cool-down (direction=back)',
  ['level', 'direction'],
);

/** `gw.level.switched.<owner>` on core NATS, for operators tailing events. */
export function natsLevelEvents(nc: NatsConnection, now: () => number = Date.now): LevelEvents {
  return {
    levelSwitched: (ownerId, level, until) => {
      levelSwitches.labels(String(level), until === undefined ? 'back' : 'backup').inc();
      publishEvent(nc, SUBJECTS.levelSwitched(ownerId), events.LevelSwitched, {
        ownerId: BigInt(ownerId),
        level,
        switchedBack: until === undefined,
        until: until === undefined ? '' : new Date(until).toISOString(),
        at: new Date(now()).toISOString(),
      });
    },
  };
}
