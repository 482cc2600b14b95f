import { z } from 'zod';
import { errorResponse } from '../../openapi/shared-schemas.js';

const services = z.record(z.string(), z.enum(['serving', 'not_serving']));

/** GET /healthz when every process serves. */
export const healthyResponse = z.object({ status: z.literal('ok'), services });

/** GET /healthz when one does not: the error shape plus each process's state. */
export const unhealthyResponse = z.object({ ...errorResponse.shape, services });
