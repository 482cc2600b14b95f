import { z } from 'zod';
import type { Route } from '../route.js';

/**
 * GET /livez: 200 while this edge process answers HTTP. It asks no other process, so an orchestrator's
 * liveness and readiness probes never take every edge out of rotation (or restart them) because a
 * service behind it is down; /healthz reports the whole gateway.
 */
export const getLivez: Route = {
  method: 'get',
  path: '/livez',
  access: 'public',
  doc: {
    summary: 'Whether this edge process answers',
    tag: 'health',
    response: z.object({ status: z.literal('ok') }),
  },
  handle(_deps, _req, res) {
    res.json({ status: 'ok' });
    return Promise.resolve();
  },
};
