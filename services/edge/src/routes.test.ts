import { createLogger, Metrics } from '@gw/kit';
import type { Router } from 'express';
import { describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import type { EdgeDeps } from './deps.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { ROUTES } from './routes.js';

/** Every route Express ended up with, as `METHOD path`. */
function registered(): string[] {
  // Nothing in these deps is called while the app is only built.
  const app = buildApp(
    { config: { GW_BODY_LIMIT: '1mb', PROXY_ADDR: '127.0.0.1:1' } } as EdgeDeps,
    createLogger('test', 'silent'),
    new Metrics(),
  );
  const stack = (app.router as unknown as Router).stack;
  return stack.flatMap((layer) =>
    layer.route
      ? Object.keys((layer.route as unknown as { methods: Record<string, boolean> }).methods).map(
          (method) => `${method.toUpperCase()} ${layer.route?.path as string}`,
        )
      : [],
  );
}

describe('the route table', () => {
  it('is the only way a route is registered: every Express route has its entry and access level', () => {
    const table = ROUTES.map((route) => `${route.method.toUpperCase()} ${route.path}`);
    expect(registered().sort()).toEqual([...table].sort());
  });

  it('lists each method and path once, with a known access level', () => {
    const table = ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(new Set(table).size).toBe(table.length);
    for (const route of ROUTES) {
      expect(['public', 'user', 'owner', 'root']).toContain(route.access);
    }
  });

  it('is what the OpenAPI document describes: every route once, with its access and a 200 answer', () => {
    const document = buildOpenApiDocument(ROUTES);
    const described = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { 'x-access': string; responses: Record<string, unknown> }>).map(
        ([method, operation]) => ({
          route: `${method} ${path}`,
          access: operation['x-access'],
          ok: '200' in operation.responses,
        }),
      ),
    );
    const table = ROUTES.map((route) => ({
      route: `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`,
      access: route.access,
      ok: true,
    }));
    const byRoute = (a: { route: string }, b: { route: string }) => a.route.localeCompare(b.route);
    expect(described.sort(byRoute)).toEqual(table.sort(byRoute));
  });
});
