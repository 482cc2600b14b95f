import type { z } from 'zod';

/** The tags of the document, in the order it lists them. */
export const TAGS = {
  health: 'Liveness and readiness of the gateway.',
  signup: 'Self-signup (no key; 404 unless signup is switched on).',
  accounts: 'Subaccounts, key rotation and the conservation audit.',
  dashboard: "The caller's own view: status, user_info, operation log, news, settings.",
  keys: "The owner's provider keys and the secret ciphers.",
  config: "The owner's configuration and the routing decision for a model.",
  news: 'System, user and DNA news.',
  console: 'Web console sessions: an API key exchanged for an HttpOnly cookie (never for /v1).',
  docs: 'This document.',
} as const;
export type Tag = keyof typeof TAGS;

/**
 * What the OpenAPI document says about one route. Every Route carries one, so adding a route to
 * the table documents it; the schemas are the ones the handler validates with (request) and a
 * response schema beside the handler (answer).
 */
export interface RouteDoc {
  summary: string;
  tag: Tag;
  /** Query parameters: the zod schema the handler parses `req.query` with. */
  query?: z.ZodType;
  /** The JSON body: the zod schema the handler parses `req.body` with. */
  body?: z.ZodType;
  /** Descriptions of the `:name` path parameters (each is a string in the URL). */
  params?: Record<string, string>;
  /** The 200 answer: its JSON schema, or an HTML page. */
  response: z.ZodType | 'html';
  /** Error statuses this route answers beyond the ones every route of its kind can. */
  errors?: readonly number[];
  /** Answers other than 200 that do not carry the error shape (or carry more than it). */
  otherResponses?: Readonly<Record<number, z.ZodType>>;
  /** Errors in another shape than the spec's error body (signup); 'html' for a page. */
  errorBody?: z.ZodType | 'html';
}
