import { events } from '@gw/proto';
import type { Logger } from './log.js';
import { subscribeEvents, type NatsConnection } from './nats.js';
import { SUBJECTS } from './subjects.js';

/** What the switch reads: the config service's GetSystemSettings. */
export interface SystemSettingsReader {
  getSystemSettings(request: object): Promise<{ settings?: { version: bigint; logEnable: boolean } }>;
}

/** Backstop for a lost `gw.system.updated` event. */
const BACKSTOP_MS = 30_000;

/**
 * Whether this process writes its per-request access lines: root's LogEnable (POST /x-conf), one
 * switch for the whole gateway, held by the config service. On until the settings say otherwise;
 * an answer older than the one applied is ignored, so reads that cross never turn it back.
 */
export class AccessLogSwitch {
  private version = -1n;
  private on = true;

  constructor(private readonly log: Logger) {}

  get enabled(): boolean {
    return this.on;
  }

  apply(version: bigint, logEnable: boolean): void {
    if (version < this.version) {
      return;
    }
    this.version = version;
    if (logEnable !== this.on) {
      this.on = logEnable;
      this.log.info({ logEnable }, 'access log switched');
    }
  }
}

/**
 * Reads the system settings now (a config service that does not answer leaves the lines on and
 * is asked again), again on every `gw.system.updated` (every replica sees it: core NATS), and every
 * 30 s in case an event was lost. Resolves once the first read answered or failed.
 */
export async function watchAccessLog(
  reader: SystemSettingsReader,
  nc: NatsConnection,
  log: Logger,
  backstopMs = BACKSTOP_MS,
): Promise<{ accessLog: AccessLogSwitch; close(): void }> {
  const accessLog = new AccessLogSwitch(log);
  const read = async () => {
    try {
      const { settings } = await reader.getSystemSettings({});
      if (settings) {
        accessLog.apply(settings.version, settings.logEnable);
      }
    } catch (error) {
      log.warn({ err: error }, 'system settings could not be read: the access-log switch stays as it is');
    }
  };
  const subscription = subscribeEvents(nc, SUBJECTS.systemUpdated, events.SystemSettingsUpdated, read, log);
  const timer = setInterval(() => void read(), backstopMs);
  timer.unref();
  await read();
  return {
    accessLog,
    close() {
      clearInterval(timer);
      subscription.unsubscribe();
    },
  };
}
