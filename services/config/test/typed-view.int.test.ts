import { configViewObject } from '@gw/kit';
import { config as configPb } from '@gw/proto';
import { startService, type StartedService } from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Answer = Pick<configPb.GetOwnerConfigResponse, 'configs' | 'configsJson'>;

/** The typed view of an answer, checked against the deprecated JSON filled beside it. */
function viewOf(answer: Answer): configPb.ConfigView {
  expect(answer.configs).toBeDefined();
  const view = answer.configs ?? configPb.ConfigView.create();
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  expect(JSON.parse(answer.configsJson)).toEqual(configViewObject(view));
  return view;
}

describe('GetOwnerConfig, UpdateOwnerConfig and DeleteOwnerConfig answer a typed ConfigView', () => {
  let service: StartedService<'config'>;
  // Config keys an owner's rows by its id alone and never asks accounts about it.
  const ownerId = 1n;

  beforeAll(async () => {
    service = await startService('config');
  });

  afterAll(async () => {
    await (service as StartedService<'config'> | undefined)?.stop();
  });

  it('types every key, keeps mapper entries in their order and PRICING as its text', async () => {
    const pricing = '{"ChatPricing":{"gpt-4o":{"InputText":2.5}}}';
    const updated = await service.client.updateOwnerConfig({
      ownerId,
      operatorId: ownerId,
      ipAddress: '127.0.0.1',
      mergeLimits: false,
      values: {
        MODEL_MAPPER: 'gpt-4o*=gpt-4o-2024, gpt-4*=gpt-4-turbo',
        MODEL_FAILOVER: 'gpt-4o=gpt-4o-mini|claude-3-haiku',
        LEVEL_MAPPER: 'gpt-*=2, claude-*=3',
        SWITCH_OVER: '2=1',
        RESOURCES: '/v1/chat/completions, /v1/embeddings',
        MODEL_LIMITS: '{"gpt-4o":{"rpm":10,"tpd":0}}',
        PRICING: pricing,
        EMAIL_PASS: 'a-password',
      },
    });
    const expected: Partial<configPb.ConfigView> = {
      modelMapper: [
        { pattern: 'gpt-4o*', model: 'gpt-4o-2024' },
        { pattern: 'gpt-4*', model: 'gpt-4-turbo' },
      ],
      modelFailover: [{ pattern: 'gpt-4o', backups: ['gpt-4o-mini', 'claude-3-haiku'] }],
      levelMapper: [
        { pattern: 'gpt-*', level: 2 },
        { pattern: 'claude-*', level: 3 },
      ],
      switchOver: [{ level: 2, backupLevel: 1 }],
      resources: ['/v1/chat/completions', '/v1/embeddings'],
      modelLimits: { entries: [{ pattern: 'gpt-4o', limits: { rpm: 10n, tpd: 0n } }] },
      pricing,
      emailPass: '********',
    };
    expect(viewOf(updated)).toMatchObject(expected);
    // The password is revealed in the raw values to readers that ask, never in the view.
    const revealed = await service.client.getOwnerConfig({ ownerId, revealSecrets: true });
    expect(revealed.values.EMAIL_PASS).toBe('a-password');
    expect(viewOf(revealed)).toMatchObject(expected);

    const deleted = await service.client.deleteOwnerConfig({
      ownerId,
      operatorId: ownerId,
      ipAddress: '127.0.0.1',
      keys: ['MODEL_MAPPER', 'MODEL_LIMITS', 'EMAIL_PASS'],
    });
    expect(viewOf(deleted)).toMatchObject({
      modelMapper: [],
      modelLimits: { entries: [] },
      emailPass: '',
      levelMapper: expected.levelMapper,
    });
  });
});
