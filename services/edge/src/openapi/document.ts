import { SYSTEM_VERSION } from '@gw/kit';
import { STATUS_CODES } from 'node:http';
import { z } from 'zod';
import {
  createDocument,
  type oas32,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
} from 'zod-openapi';
import type { Route } from '../http/route.js';
import { TAGS, type RouteDoc } from './route-doc.js';
import { errorResponse } from './shared-schemas.js';

const WITH_BODY = new Set(['post', 'put', 'delete']);

/**
 * The error statuses a route can answer: the ones every route of its kind can (a failing or
 * unreachable service; a key refused, out of scope or throttled; a body too large or not JSON;
 * input refused) and the ones its doc names.
 */
function errorStatuses(route: Route): number[] {
  const statuses = new Set([500, 503, ...(route.doc.errors ?? [])]);
  if (route.access !== 'public') {
    [401, 403, 429].forEach((status) => statuses.add(status));
  }
  if (route.doc.query || route.doc.body || route.doc.params || WITH_BODY.has(route.method)) {
    statuses.add(400);
  }
  if (WITH_BODY.has(route.method)) {
    [413, 415].forEach((status) => statuses.add(status));
  }
  return [...statuses].sort((a, b) => a - b);
}

function content(schema: z.ZodType | 'html') {
  return schema === 'html' ? { 'text/html': { schema: z.string() } } : { 'application/json': { schema } };
}

/** `/x-users/:identifier` → `/x-users/{identifier}`. */
function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

function pathParams(route: Route) {
  const names = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1] ?? '');
  if (names.length === 0) {
    return undefined;
  }
  return z.object(
    Object.fromEntries(
      names.map((name) => [name, z.string().meta({ description: route.doc.params?.[name] ?? name })]),
    ),
  );
}

function operation(route: Route): ZodOpenApiOperationObject {
  const doc: RouteDoc = route.doc;
  const responses: Record<`${number}`, ZodOpenApiResponseObject> = {
    '200': { description: 'OK', content: content(doc.response) },
  };
  for (const status of errorStatuses(route)) {
    responses[`${status}`] = {
      description: STATUS_CODES[status] ?? String(status),
      content: content(doc.errorBody ?? errorResponse),
    };
  }
  for (const [status, schema] of Object.entries(doc.otherResponses ?? {})) {
    responses[status as `${number}`] = {
      description: STATUS_CODES[Number(status)] ?? status,
      content: content(schema),
    };
  }
  return {
    summary: doc.summary,
    tags: [doc.tag],
    operationId: `${route.method}${openApiPath(route.path).replace(/[^A-Za-z0-9]+(.)?/g, (_, c?: string) => (c ?? '').toUpperCase())}`,
    security: route.access === 'public' ? [] : [{ apiKey: [] }],
    'x-access': route.access,
    requestParams: {
      ...(doc.query && { query: doc.query as z.ZodObject }),
      ...(pathParams(route) && { path: pathParams(route) }),
    },
    ...(doc.body && {
      requestBody: { required: true, content: { 'application/json': { schema: doc.body } } },
    }),
    responses,
  };
}

/**
 * The OpenAPI 3.1 document of the management and dashboard API, built from the route table:
 * each route's access level, request schemas (the ones its handler validates with) and
 * response schemas. `docs/openapi.json` is this document, committed; the edge serves it at
 * GET /openapi.json.
 */
// createDocument answers the 3.2 object model, a superset of the 3.1 document this is.
export function buildOpenApiDocument(routes: readonly Route[]): oas32.OpenAPIObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: operation(route) };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'AI gateway management API',
      version: SYSTEM_VERSION,
      description:
        'The management and dashboard endpoints of the edge. The OpenAI-compatible AI endpoints under /v1 are forwarded to the AI proxy and are not described here, except the model listing (`/v1/models`, `/models`), which the edge answers itself. `x-access` names who may call an operation: public (no key), user (any enabled key), owner (an owner or root), root.',
    },
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    security: [{ apiKey: [] }],
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key: `Authorization: Bearer sk-...`.',
        },
      },
    },
    paths,
  });
}
