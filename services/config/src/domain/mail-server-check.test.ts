import { AddressList, AppError, selfAddressesOf } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import { checkMailServer } from './mail-server-check.js';

const self = selfAddressesOf(
  { ACCOUNTS_ADDR: '127.0.0.1:50051', GW_EDGE_PORT: 8080, GW_PUBLIC_URL: 'https://gw.example.net' },
  [],
);
const resolving = (table: Record<string, string[]>) => ({
  self,
  tenantPrivate: AddressList.of(''),
  resolver: { resolve: (host: string) => Promise.resolve(table[host]) },
});

async function refusal(
  values: Record<string, string>,
  ownerIsRoot: boolean,
  table: Record<string, string[]> = {},
): Promise<string | undefined> {
  try {
    await checkMailServer(resolving(table), values, ownerIsRoot);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).details).toEqual({ field: 'EMAIL_SMTP' });
    return (error as AppError).message;
  }
}

describe('checkMailServer', () => {
  it('refuses metadata and link-local servers for every owner, root included', async () => {
    for (const host of ['169.254.169.254', 'metadata.google.internal', '[fe80::1]', '[fd00:ec2::254]']) {
      expect(await refusal({ EMAIL_SMTP: host }, true)).toMatch(/link-local or metadata/);
    }
  });

  it("refuses the gateway's own endpoints by address, name and public host", async () => {
    expect(await refusal({ EMAIL_SMTP: '127.0.0.1', EMAIL_PORT: '8080' }, true)).toMatch(/gateway itself/);
    expect(await refusal({ EMAIL_SMTP: 'localhost', EMAIL_PORT: '50051' }, true)).toMatch(/gateway itself/);
    expect(await refusal({ EMAIL_SMTP: 'gw.example.net' }, true)).toMatch(/gateway itself/);
    expect(await refusal({ EMAIL_SMTP: '0.0.0.0', EMAIL_PORT: '25' }, true)).toMatch(/gateway itself/);
  });

  it("allows loopback and private servers in root's configuration only", async () => {
    expect(await refusal({ EMAIL_SMTP: '127.0.0.1', EMAIL_PORT: '2525' }, true)).toBeUndefined();
    expect(await refusal({ EMAIL_SMTP: '10.1.2.3' }, true)).toBeUndefined();
    expect(await refusal({ EMAIL_SMTP: '127.0.0.1', EMAIL_PORT: '2525' }, false)).toMatch(/loopback/);
    expect(await refusal({ EMAIL_SMTP: '192.168.1.5' }, false)).toMatch(/private/);
  });

  it("allows a tenant's loopback or private server only inside GW_TENANT_PRIVATE_CIDRS", async () => {
    const listed = {
      self,
      tenantPrivate: AddressList.of('10.5.0.0/16'),
      resolver: { resolve: () => Promise.resolve(['10.5.1.1']) },
    };
    await expect(checkMailServer(listed, { EMAIL_SMTP: '10.5.9.9' }, false)).resolves.toBeUndefined();
    await expect(checkMailServer(listed, { EMAIL_SMTP: 'relay.test' }, false)).resolves.toBeUndefined();
    await expect(checkMailServer(listed, { EMAIL_SMTP: '10.6.0.1' }, false)).rejects.toThrow(/private/);
  });

  it('checks every address a name resolves to, on the port that applies (587, or 465 with TLS)', async () => {
    const table = { 'mail.example.com': ['203.0.113.7', '127.0.0.1'], 'ok.example.com': ['203.0.113.8'] };
    expect(await refusal({ EMAIL_SMTP: 'mail.example.com' }, false, table)).toMatch(/loopback/);
    expect(await refusal({ EMAIL_SMTP: 'ok.example.com' }, false, table)).toBeUndefined();
    const selfPorts = selfAddressesOf({ GW_EDGE_PORT: 465 }, []);
    const tls = {
      self: selfPorts,
      tenantPrivate: AddressList.of(''),
      resolver: { resolve: () => Promise.resolve(['127.0.0.1']) },
    };
    await expect(checkMailServer(tls, { EMAIL_SMTP: 'relay.test', EMAIL_TLS: 'true' }, true)).rejects.toThrow(
      /gateway itself/,
    );
    await expect(
      checkMailServer(tls, { EMAIL_SMTP: 'relay.test', EMAIL_TLS: 'false' }, true),
    ).resolves.toBeUndefined();
  });

  it('passes a name that does not resolve now (the mailer checks again on connect)', async () => {
    expect(await refusal({ EMAIL_SMTP: 'offline.example.com' }, false)).toBeUndefined();
  });
});
