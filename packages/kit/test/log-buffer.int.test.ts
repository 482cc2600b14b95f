import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./log-fixture.ts', import.meta.url));

interface Fixture {
  child: ChildProcess;
  /** The `msg` of every JSON line the fixture wrote to stdout so far, in order. */
  messages(): string[];
  /** Its exit code, once it exited and its stdout is read to the end. */
  closed: Promise<number | null>;
}

function runFixture(mode: string, ...args: string[]): Fixture {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, mode, ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text: string) => (output += text));
  return {
    child,
    messages: () =>
      output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => String((JSON.parse(line) as { msg?: unknown }).msg)),
    closed: new Promise((resolve) => child.once('close', (code) => resolve(code))),
  };
}

/** Waits until the running fixture's stdout holds this line; it has logged nothing since. */
async function waitForLine(fixture: Fixture, message: string): Promise<void> {
  await vi.waitFor(() => expect(fixture.messages()).toContain(message), { timeout: 30_000, interval: 20 });
  expect(fixture.child.exitCode).toBeNull();
}

/**
 * The kit's stdout (log-stdout.ts) holds lines until 12 KiB are pending: each fixture but `burst`
 * logs far less, so its lines come out only through the quiet process's timer or the flush on exit.
 */
describe('createLogger on stdout', () => {
  it('writes the line of a process that then stays quiet, without a later line pushing it out', async () => {
    const fixture = runFixture('quiet');

    await waitForLine(fixture, 'fixture started');

    expect(fixture.messages()).toEqual(['fixture starting', 'fixture started']);
    fixture.child.kill('SIGTERM');
    expect(await fixture.closed).toBe(0);
  });

  it('writes every line logged in the same tick as a graceful stop exits 0', async () => {
    const fixture = runFixture('quiet');
    await waitForLine(fixture, 'fixture started');

    fixture.child.kill('SIGTERM');

    expect(await fixture.closed).toBe(0);
    expect(fixture.messages()).toEqual([
      'fixture starting',
      'fixture started',
      'shutting down',
      'fixture step ran',
      'stopped',
    ]);
  });

  it('writes the lines before a failed start and its reason as it exits 1', async () => {
    const fixture = runFixture('failing-start');

    expect(await fixture.closed).toBe(1);
    expect(fixture.messages()).toEqual(['fixture starting', 'start-up failed']);
  });

  it('writes the lines of a stop that took too long as it exits 1', async () => {
    const fixture = runFixture('slow-stop');
    await waitForLine(fixture, 'fixture started');

    fixture.child.kill('SIGTERM');

    expect(await fixture.closed).toBe(1);
    expect(fixture.messages().slice(2)).toEqual([
      'shutting down',
      'fixture step ran',
      'shutdown took too long, exiting',
    ]);
  });

  it('writes the line logged just before an uncaught exception ends the process', async () => {
    const fixture = runFixture('crash');

    expect(await fixture.closed).toBe(1);
    expect(fixture.messages()).toEqual(['fixture starting', 'fixture started', 'fixture crashing']);
  });

  it('writes a burst of many batches whole and in order, multi-byte text intact', async () => {
    const lines = 2_000;
    const fixture = runFixture('burst', String(lines));
    await waitForLine(fixture, `burst café ✓ ${lines - 1}`);

    fixture.child.kill('SIGTERM');

    expect(await fixture.closed).toBe(0);
    const burst = fixture.messages().filter((message) => message.startsWith('burst'));
    expect(burst).toEqual(Array.from({ length: lines }, (_, line) => `burst café ✓ ${line}`));
  });
});
