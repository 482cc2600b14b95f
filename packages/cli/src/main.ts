import { parseArgs } from 'node:util';
import { createLogger } from '@gw/kit';
import { loadGwConfig, type GwConfig } from './config.js';
import { tailEvents } from './events/tail.js';
import { rotateRootKey } from './root-key.js';
import { rotateSecretKey } from './secrets.js';
import { parseSince } from './since.js';

const USAGE = `gw — operations on a running gateway (run in the checkout: npx gw …)

  gw events tail [subject] [--owner ID] [--account ID] [--since TIME] [--json]
      Print every event on gw.> (or the subject pattern given) as one line, decoded from
      events.proto. --since (ISO time, or 30s, 15m, 2h, 7d) replays the JetStream streams from then.
  gw root-key --rotate
      Give root a new key (printed once) and revoke the old one at once. Runs where the
      gateway's database is reachable: DATABASE_URL (also while it runs), or the embedded one in
      GW_DATA_DIR with the gateway stopped.
  gw secrets rotate-key
      Re-encrypt stored secrets from GW_SECRET_KEY to GW_NEW_SECRET_KEY (generated when unset),
      with keypool and config stopped. See deploy/README.md.

Every command acts on the gateway of GW_DATA_DIR (default: .data in the checkout). It finds that
gateway's NATS and services as npm start did: NATS_URL and <SERVICE>_ADDR when set, else the ports
GW_PORT_BASE derives, else the settings the last npm start recorded in GW_DATA_DIR/gateway.json,
else the defaults; it says which NATS it uses. A command that changes the data folder refuses
while the npm start holding it runs. Also read: DATABASE_URL, GW_SECRET_KEY.
`;

function fail(message: string): number {
  process.stderr.write(`gw: ${message}\n\n${USAGE}`);
  return 2;
}

async function eventsTail(config: GwConfig, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      owner: { type: 'string' },
      account: { type: 'string' },
      since: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length > 1) {
    return fail('events tail takes one subject pattern at most');
  }
  for (const id of [values.owner, values.account]) {
    if (id !== undefined && !/^\d+$/.test(id)) {
      return fail(`an owner or account id is a number, got "${id}"`);
    }
  }
  const since = values.since === undefined ? undefined : parseSince(values.since, new Date());
  if (values.since !== undefined && since === undefined) {
    return fail(`--since takes an ISO 8601 time or a span such as 15m, got "${values.since}"`);
  }
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => stop.abort());
  }
  await tailEvents(
    {
      natsUrl: config.NATS_URL,
      natsSource: config.natsSource,
      subject: positionals[0] ?? 'gw.>',
      filter: { owner: values.owner, account: values.account },
      since,
      json: values.json,
      write: (line) => process.stdout.write(`${line}\n`),
      log: createLogger('gw', 'warn', process.stderr),
    },
    stop.signal,
  );
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const config = loadGwConfig(process.env);
  const [group, verb, ...rest] = argv;
  if (group === 'events' && verb === 'tail') {
    return eventsTail(config, rest);
  }
  if (group === 'root-key' && verb === '--rotate' && rest.length === 0) {
    return rotateRootKey(config);
  }
  if (group === 'secrets' && verb === 'rotate-key' && rest.length === 0) {
    return rotateSecretKey(config);
  }
  if (group === undefined || group === 'help' || group === '--help') {
    process.stdout.write(USAGE);
    return 0;
  }
  return fail(`unknown command: ${argv.join(' ')}`);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`gw: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
