import {
  AUTH_CACHE_UNTIL_EVENT,
  createTestDatabase,
  startGateway,
  type Gateway,
  type TestDatabase,
} from '@gw/testkit';
import { afterAll, beforeAll } from 'vitest';

export const NANO = 1_000_000_000n;

/** The answer of an update on /x-users/{identifier}. */
export interface UpdateBody {
  Action: string;
  User: Record<string, unknown> & { ID: number; Balance: number; AllowModels: string; Status: boolean };
}

export interface ManageGateway {
  gw: Gateway;
  database: TestDatabase;
  /** PUT /x-users/{identifier}, as root unless a key is given. */
  put: (
    identifier: string | number,
    json: unknown,
    key?: string,
    headers?: Record<string, string>,
  ) => Promise<Response>;
  /** DELETE /x-users/{identifier}, as root unless a key is given. */
  del: (identifier: string | number, key?: string, headers?: Record<string, string>) => Promise<Response>;
}

/**
 * Starts a gateway for the calling test file (in `beforeAll`, stopped in `afterAll`), with account
 * keys cached until an event says otherwise, and answers the handle its tests use; `gw` and
 * `database` are set once it started.
 */
export function useManageGateway(): ManageGateway {
  const manage = {
    put: (identifier: string | number, json: unknown, key?: string, headers?: Record<string, string>) =>
      manage.gw.request(`/x-users/${encodeURIComponent(String(identifier))}`, {
        method: 'PUT',
        json,
        key: key ?? manage.gw.rootKey,
        headers,
      }),
    del: (identifier: string | number, key?: string, headers?: Record<string, string>) =>
      manage.gw.request(`/x-users/${encodeURIComponent(String(identifier))}`, {
        method: 'DELETE',
        key: key ?? manage.gw.rootKey,
        headers,
      }),
  } as ManageGateway;

  beforeAll(async () => {
    manage.database = await createTestDatabase();
    manage.gw = await startGateway({ databaseUrl: manage.database.url, env: AUTH_CACHE_UNTIL_EVENT });
  });

  afterAll(async () => {
    // beforeAll may have failed before assigning them.
    await (manage.gw as Gateway | undefined)?.stop();
    await (manage.database as TestDatabase | undefined)?.drop();
  });

  return manage;
}
