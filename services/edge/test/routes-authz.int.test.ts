import { startGateway, type Gateway } from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../src/routes.js';

/** A concrete URL for a route path: every `:param` filled with a plausible value. */
const concrete = (path: string) => path.replace(/:[a-z]+/g, '1');

const others = ROUTES.filter((route) => route.access !== 'public');
const privileged = ROUTES.filter((route) => route.access === 'owner' || route.access === 'root');

describe('authorization over the route table', () => {
  let gw: Gateway;
  let userKey: string;

  beforeAll(async () => {
    gw = await startGateway();
    const created = await gw.request('/x-users', {
      method: 'POST',
      json: { Name: 'plainuser', Email: 'plainuser@example.com', CreditGranted: 2 },
    });
    userKey = ((await created.json()) as { User: { SecretKey: string } }).User.SecretKey;
  });

  afterAll(async () => {
    await gw.stop();
  });

  const call = (method: string, path: string, key: string | null) =>
    gw.request(path, { method, key, ...(method === 'GET' ? {} : { json: {} }) });

  it.each(others.map((route) => [route.method.toUpperCase(), route.path] as const))(
    '%s %s refuses a request without a key (401)',
    async (method, path) => {
      const response = await call(method, concrete(path), null);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({
        error: { type: 'authentication_error', code: 'unauthenticated' },
      });
    },
  );

  it.each(privileged.map((route) => [route.method.toUpperCase(), route.path, route.access] as const))(
    '%s %s (%s) refuses a plain account (403), however the path is spelled',
    async (method, path) => {
      for (const spelling of [concrete(path), `${concrete(path)}/`, concrete(path).toUpperCase()]) {
        const response = await call(method, spelling, userKey);
        expect({ spelling, status: response.status }).toEqual({ spelling, status: 403 });
        expect(await response.json()).toMatchObject({
          error: { type: 'permission_error', code: 'forbidden' },
        });
      }
    },
  );
});
