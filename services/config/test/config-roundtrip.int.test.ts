import { createGrpcClient, type PromiseClient } from '@gw/kit';
import { config as configPb } from '@gw/proto';
import { startGateway, type Gateway } from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface ConfigAnswer {
  success: boolean;
  configs: Record<string, unknown>;
}

const EMAIL_PASS = 'smtp-password-for-the-round-trip';

describe('GET then PUT /x-config', () => {
  let gw: Gateway;
  let client: PromiseClient<configPb.ConfigServiceClient>;
  let rootId: bigint;

  const get = async () => {
    const response = await gw.request('/x-config');
    expect(response.status).toBe(200);
    return (await response.json()) as ConfigAnswer;
  };

  beforeAll(async () => {
    gw = await startGateway();
    client = createGrpcClient(
      configPb.ConfigServiceClient,
      gw.env.CONFIG_ADDR ?? '',
      gw.env.GW_INTERNAL_TOKEN ?? '',
    );
    rootId = BigInt(((await (await gw.request('/dashboard/status')).json()) as { id: number }).id);
  });

  afterAll(async () => {
    client.close();
    await gw.stop();
  });

  it('accepts what it answered, unchanged, and keeps every value (the masked password included)', async () => {
    const set = await gw.request('/x-config', {
      method: 'PUT',
      json: {
        MODEL_MAPPER: 'gpt-4*=gpt-4o, fast=gpt-4o-mini',
        MODEL_FAILOVER: 'gpt-4o=gpt-4o-mini|claude-3-haiku',
        LEVEL_MAPPER: 'gpt-*=1, claude-*=2',
        SWITCH_OVER: '1=2',
        RESOURCES: '/v1/chat/completions, /v1/embeddings',
        MODEL_LIMITS: '{"gpt-4o":{"rpm":10,"tpm":1000}}',
        PRICING: '{"ChatPricing":{"gpt-4o":{"InputText":2.5}}}',
        SVC_MAIL: 'ops@example.com',
        EMAIL_SMTP: 'smtp.example.com',
        EMAIL_PORT: '587',
        EMAIL_AUTH: 'mailer',
        EMAIL_PASS,
        EMAIL_TLS: 'true',
      },
    });
    expect(set.status).toBe(200);
    const before = await get();
    const storedBefore = await client.getOwnerConfig({ ownerId: rootId, revealSecrets: true });

    const again = await gw.request('/x-config', { method: 'PUT', json: before.configs });
    expect(again.status).toBe(200);

    expect((await get()).configs).toEqual(before.configs);
    const storedAfter = await client.getOwnerConfig({ ownerId: rootId, revealSecrets: true });
    expect(storedAfter.values).toEqual(storedBefore.values);
    expect(storedAfter.values.EMAIL_PASS).toBe(EMAIL_PASS);
  });
});
