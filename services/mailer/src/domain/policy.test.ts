import { describe, expect, it } from 'vitest';
import { mailerPolicy } from './policy.js';

describe('mailerPolicy', () => {
  it('links the welcome mail to pages the gateway serves: the API reference and the console', () => {
    const policy = mailerPolicy({
      publicUrl: 'https://gw.example.com/',
      docsUrl: undefined,
      manageUrl: undefined,
      smtpUrl: undefined,
      from: undefined,
    });
    expect(policy).toMatchObject({
      docsUrl: 'https://gw.example.com/docs',
      manageUrl: 'https://gw.example.com/console/',
    });
  });
});
