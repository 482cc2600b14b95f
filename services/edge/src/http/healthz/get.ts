import { AppError, ErrorCode, errorBody } from '@gw/kit';
import type { Route } from '../route.js';
import { healthyResponse, unhealthyResponse } from './schemas.js';

/** GET /healthz: 200 once every process serves; 503 naming the ones that do not, and the store each misses. */
export const getHealthz: Route = {
  method: 'get',
  path: '/healthz',
  access: 'public',
  doc: {
    summary: 'Whether every process of the gateway serves',
    tag: 'health',
    response: healthyResponse,
    otherResponses: { 503: unhealthyResponse },
  },
  async handle(deps, _req, res) {
    const report = await deps.health();
    if (report.ok) {
      res.json({ status: 'ok', services: report.services });
      return;
    }
    res.status(503).json({
      ...errorBody(new AppError(ErrorCode.Unavailable, `not serving: ${report.down.join(', ')}`)),
      services: report.services,
    });
  },
};
