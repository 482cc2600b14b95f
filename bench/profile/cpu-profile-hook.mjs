// Preloaded into every gateway process by bench/profile/run.ts (NODE_OPTIONS=--import ..., since
// Node refuses --cpu-prof there). SIGUSR2 starts the V8 profiler, so the profile holds the load
// and not the start; when the process exits, <pid>.cpuprofile is written into
// GW_CPU_PROFILE_DIR. The in-process inspector session answers synchronously, so the profile can
// be taken inside the 'exit' handler.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env.GW_CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  let started = false;
  process.on('SIGUSR2', () => {
    session.post('Profiler.start');
    started = true;
  });
  process.on('exit', () => {
    if (!started) {
      return;
    }
    session.post('Profiler.stop', (error, result) => {
      if (!error) {
        writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
      }
    });
  });
}
