import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { freePort, waitFor } from './ports.js';

/** A real SMTP listener on loopback that keeps every message it accepts, parsed. */
export interface SmtpSink {
  port: number;
  /** Messages accepted so far, in arrival order. */
  messages: ParsedMail[];
  /** Connections seen so far (refused ones included). */
  connections(): number;
  /** Logins seen so far (user and password as given). */
  logins: Array<{ username: string; password: string }>;
  /** Answers the next `count` connections with a temporary refusal carrying `banner` as its text. */
  refuseNext(count: number, banner?: string): void;
  /** The first accepted message matching `match`, waiting for it. */
  waitForMessage(match: (mail: ParsedMail) => boolean, timeoutMs?: number): Promise<ParsedMail>;
  close(): Promise<void>;
}

/** The plain-text address list of a parsed header (`to`, `from`). */
export function addressesOf(field: ParsedMail['to']): string[] {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  return list.flatMap((entry) => entry.value.map((address) => (address.address ?? '').toLowerCase()));
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const port = await freePort();
  const messages: ParsedMail[] = [];
  const logins: Array<{ username: string; password: string }> = [];
  let connections = 0;
  let refusals: Array<string> = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      connections += 1;
      const banner = refusals.shift();
      if (banner !== undefined) {
        callback(Object.assign(new Error(banner), { responseCode: 421 }));
        return;
      }
      callback();
    },
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
      callback(null, { user: auth.username });
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          messages.push(mail);
          callback();
        },
        (error: unknown) => callback(error as Error),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port,
    messages,
    logins,
    connections: () => connections,
    refuseNext(count, banner = 'try again later') {
      refusals = [...refusals, ...new Array<string>(count).fill(banner)];
    },
    async waitForMessage(match, timeoutMs = 30_000) {
      let found: ParsedMail | undefined;
      await waitFor(
        () => {
          found = messages.find(match);
          return Promise.resolve(found !== undefined);
        },
        'a matching mail in the SMTP sink',
        timeoutMs,
        50,
      );
      if (!found) {
        throw new Error('no matching mail');
      }
      return found;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
