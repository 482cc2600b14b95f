import { z } from 'zod';
import { callerOf } from '../../../auth/authenticate.js';
import { parseInput, type Route } from '../../route.js';
import { logsResponse } from '../schemas.js';

const digits = (max: number) => z.string().regex(new RegExp(`^\\d{1,${max}}$`), 'must be a positive integer');

const logsQuery = z.object({
  page: digits(7)
    .refine((value) => Number(value) >= 1, 'must be at least 1')
    .optional(),
  size: digits(4)
    .refine((value) => Number(value) >= 1 && Number(value) <= 100, 'must be from 1 to 100')
    .optional(),
  action: z
    .string()
    .regex(/^[a-z_]{1,64}$/, 'must be an action name')
    .optional(),
  target_id: digits(19).optional(),
  target_type: z
    .enum(['account', 'key', 'config', 'news'], 'must be account, key, config or news')
    .optional(),
  status: z.string().max(32).optional(),
});

/**
 * GET /dashboard/logs (old path /dashboard/x-user-logs): the caller's operation log, newest first:
 * what it did and what was done to its own account (an owner's also holds root's actions in its
 * tree); `target_type` says what `target_id` names.
 */
export function dashboardLogs(path: string): Route {
  return {
    method: 'get',
    path,
    access: 'user',
    doc: {
      summary: "The caller's operation log",
      tag: 'dashboard',
      query: logsQuery,
      response: logsResponse,
    },
    async handle(deps, req, res) {
      const query = parseInput(logsQuery, req.query);
      const caller = callerOf(res);
      const listed = await deps.accounts.listOperations({
        callerId: caller.id,
        page: query.page === undefined ? 1 : Number(query.page),
        size: query.size === undefined ? 24 : Number(query.size),
        action: query.action,
        targetId: query.target_id === undefined ? undefined : BigInt(query.target_id),
        targetType: query.target_type,
        status: query.status,
      });
      const total = Number(listed.total);
      res.json({
        logs: listed.entries.map((entry) => ({
          id: Number(entry.id),
          action: entry.action,
          operator_id: Number(entry.operatorId),
          target_type: entry.targetType,
          target_id: Number(entry.targetId),
          details: entry.details,
          ip_address: entry.ipAddress,
          created_at: entry.createdAt,
          status: entry.status,
        })),
        total,
        page: listed.page,
        size: listed.size,
        has_more: listed.page * listed.size < total,
      });
    },
  };
}
