import { z } from 'zod';
import { buildOpenApiDocument } from '../../openapi/document.js';
import type { Route } from '../route.js';

/**
 * GET /openapi.json (no key): the OpenAPI document of the routes the table lists, built once on
 * first use. `routes` is a thunk because this route is itself in the table it describes.
 */
export function openApiRoute(routes: () => readonly Route[]): Route {
  let document: string | undefined;
  return {
    method: 'get',
    path: '/openapi.json',
    access: 'public',
    doc: {
      summary: 'This OpenAPI document',
      tag: 'docs',
      response: z.record(z.string(), z.unknown()).meta({ description: 'An OpenAPI 3.1 document' }),
    },
    handle(_deps, _req, res) {
      document ??= JSON.stringify(buildOpenApiDocument(routes()));
      res.type('application/json').send(document);
      return Promise.resolve();
    },
  };
}
