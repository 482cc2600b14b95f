import { buildOpenApiDocument } from '../../openapi/document.js';
import { referencePage, type OpenApiDocument } from '../../openapi/reference-page.js';
import type { Route } from '../route.js';

/**
 * GET /docs (no key): the API reference, rendered from the OpenAPI document once on first use.
 * `routes` is a thunk because this route is itself in the table it describes.
 */
export function docsRoute(routes: () => readonly Route[]): Route {
  let page: string | undefined;
  return {
    method: 'get',
    path: '/docs',
    access: 'public',
    doc: { summary: 'The API reference (an HTML page)', tag: 'docs', response: 'html' },
    handle(_deps, _req, res) {
      page ??= referencePage(buildOpenApiDocument(routes()) as unknown as OpenApiDocument);
      res.type('html').send(page);
      return Promise.resolve();
    },
  };
}
