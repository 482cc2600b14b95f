import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startInProcessProxy, type InProcessProxy } from './in-process-proxy-fixture.js';

/** A JSON request body with its content type. */
export const json = (body: unknown) => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/**
 * Starts the proxy in-process for the calling test file (in `beforeAll`, reset before each test,
 * stopped in `afterAll`) and answers a handle that reaches it once started, so the tests call
 * `proxy.call(...)` as on the proxy itself.
 */
export function useForwardingProxy(): InProcessProxy {
  let started: InProcessProxy | undefined;
  const proxy = (): InProcessProxy => {
    if (!started) {
      throw new Error('the in-process proxy is not started yet (used outside a test?)');
    }
    return started;
  };

  beforeAll(async () => {
    started = await startInProcessProxy();
  });
  beforeEach(() => proxy().reset());
  afterAll(async () => {
    await started?.stop();
  });

  return {
    get base() {
      return proxy().base;
    },
    get mock() {
      return proxy().mock;
    },
    get outbox() {
      return proxy().outbox;
    },
    get health() {
      return proxy().health;
    },
    get alerted() {
      return proxy().alerted;
    },
    get port() {
      return proxy().port;
    },
    keyFor: (caller) => proxy().keyFor(caller),
    reset: () => proxy().reset(),
    useKeys: (keys, options) => proxy().useKeys(keys, options),
    call: (path, init) => proxy().call(path, init),
    upgrade: (path, init) => proxy().upgrade(path, init),
    stop: () => proxy().stop(),
  };
}
