import { AppError, ErrorCode, excerpt } from '@gw/kit';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { Access } from '../auth/authenticate.js';
import type { EdgeDeps } from '../deps.js';
import type { RouteDoc } from '../openapi/route-doc.js';

/**
 * One endpoint: its URL, who may call it, its handler and what the OpenAPI document says about
 * it (request and response schemas). The route table lists them all.
 */
export interface Route {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  access: Access;
  doc: RouteDoc;
  handle(deps: EdgeDeps, req: Request, res: Response): Promise<void>;
}

/**
 * Validates what a client sent (a body, a query or path parameters) with its zod schema; the
 * first problem is named in a 400. Keys and messages can carry what the client sent, so each is
 * quoted as a short excerpt only.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = (issue?.path ?? []).map((segment) => excerpt(String(segment))).join('.');
    const message = excerpt(issue?.message ?? 'invalid input', 200);
    throw new AppError(ErrorCode.InvalidRequest, field ? `${field}: ${message}` : message, { field });
  }
  return result.data;
}
