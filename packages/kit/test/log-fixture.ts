// A service inside runService that logs a few lines, fewer than fill the kit's stdout buffer, and
// then ends the way its argument says (log-buffer.int.test.ts):
// - quiet: logs one line once started and nothing more until SIGTERM; its one shutdown step logs
//   a line, then the kit logs `stopped` and exits 0;
// - failing-start: its start logs a line and throws (start-up failed, exit 1);
// - slow-stop: its shutdown step never ends (shutdown took too long, exit 1);
// - crash: once started, logs a line and throws outside any handler (an uncaught exception);
// - burst N: once started, logs N lines of multi-byte text in one tick (many batches).
import { runService } from '../src/lifecycle.js';

const mode = process.argv[2] ?? '';

runService('log-fixture', async (log) => {
  log.info({ mode }, 'fixture starting');
  if (mode === 'failing-start') {
    throw new Error('the fixture cannot start');
  }
  log.info('fixture started');
  // What a server does for a real service: keeps the process up until its shutdown step.
  const alive = setInterval(() => undefined, 60_000);
  if (mode === 'burst') {
    for (let line = 0; line < Number(process.argv[3]); line += 1) {
      log.info(`burst café ✓ ${line}`);
    }
  }
  if (mode === 'crash') {
    setImmediate(() => {
      log.info('fixture crashing');
      throw new Error('the fixture crashed');
    });
  }
  return {
    steps: [
      [
        'fixture',
        () => {
          log.info('fixture step ran');
          if (mode === 'slow-stop') {
            return new Promise<void>(() => undefined);
          }
          clearInterval(alive);
          return undefined;
        },
      ],
    ],
    shutdownTimeoutMs: 300,
  };
});
