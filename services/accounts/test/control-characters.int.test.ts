import { createUser, expectError, startGateway, type Gateway } from '@gw/testkit';
import { afterAll, beforeAll, describe, it } from 'vitest';

/** Control characters anywhere a client writes text are refused as a 400 naming the field. */
describe('control characters in management input', () => {
  let gw: Gateway;

  beforeAll(async () => {
    gw = await startGateway();
  }, 120_000);

  afterAll(async () => {
    await gw.stop();
  });

  it('answers 400 naming the query parameter, never 500', async () => {
    for (const [path, field] of [
      ['/x-users?email=%00', 'email'],
      ['/x-users?name=%00', 'name'],
      ['/dashboard/logs?status=%00', 'status'],
      ['/x-users/ab%00cd', 'identifier'],
    ] as const) {
      await expectError(
        await gw.request(path),
        400,
        'invalid_request',
        `${field}: must not contain control characters`,
      );
    }
  });

  it('answers 400 naming the body field, never 500', async () => {
    const child = await createUser(gw, { credit: 2 });
    const put = (json: unknown) => gw.request(`/x-users/${child.id}`, { method: 'PUT', json });
    await expectError(await put({ Alias: 'a\u0000b' }), 400, 'invalid_request', 'Alias: must not contain');
    await expectError(await put({ QRCode: '\u0001' }), 400, 'invalid_request', 'QRCode: must not contain');
    const news = (json: unknown) => gw.request('/x-news', { method: 'POST', json });
    await expectError(await news({ title: 't\u0000', content: 'c' }), 400, 'invalid_request', 'title');
    await expectError(await news({ title: 't', content: 'c\u001b' }), 400, 'invalid_request', 'content');
    const config = await gw.request('/x-config', {
      method: 'PUT',
      json: { SVC_MAIL: 'ops\u0000@example.com' },
    });
    await expectError(config, 400, 'invalid_request', 'SVC_MAIL');
  });
});
