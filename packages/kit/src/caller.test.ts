import { describe, expect, it } from 'vitest';
import { decodeCaller, encodeCaller, NO_INHERITED, type CallerIdentity } from './caller.js';

const caller: CallerIdentity = {
  accountId: '7',
  ownerId: '1',
  allowModels: '',
  allowLevels: '',
  modelMapper: '',
  levelMapper: '',
  resources: '',
  limits: {},
  modelLimits: '',
  inherited: NO_INHERITED,
};

describe('the caller identity header', () => {
  it('carries the spend the proxy holds calls against', () => {
    const spend = { balanceNano: '-1500000000', floorNano: '0', rates: 1.5, factor: 2 };
    expect(decodeCaller(encodeCaller({ ...caller, spend }))?.spend).toEqual(spend);
  });

  it('leaves the spend out when the edge sent none (root, or an older edge)', () => {
    expect(decodeCaller(encodeCaller(caller))).toEqual(caller);
  });

  it('refuses a malformed spend', () => {
    for (const spend of [
      { balanceNano: '1.5', floorNano: '0', rates: 1, factor: 1 },
      { balanceNano: '1', floorNano: '0', rates: -1, factor: 1 },
      { balanceNano: 1, floorNano: '0', rates: 1, factor: 1 },
    ]) {
      const header = Buffer.from(JSON.stringify({ ...caller, spend }), 'utf8').toString('base64');
      expect(decodeCaller(header)).toBeUndefined();
    }
  });
});

describe("the caller identity header: ancestors' ModelLimits", () => {
  const withLimits: CallerIdentity = {
    ...caller,
    inherited: { ...NO_INHERITED, modelLimits: ['{"gpt-4o-mini":{"rpm":5}}'] },
  };

  it("carries the ancestors' ModelLimits, and reads an edge that predates them as none", () => {
    expect(decodeCaller(encodeCaller(withLimits))?.inherited.modelLimits).toEqual([
      '{"gpt-4o-mini":{"rpm":5}}',
    ]);
    const { modelLimits: _none, ...older } = withLimits.inherited;
    const header = Buffer.from(JSON.stringify({ ...withLimits, inherited: older })).toString('base64');
    expect(decodeCaller(header)?.inherited.modelLimits).toEqual([]);
    const bad = Buffer.from(JSON.stringify({ ...withLimits, inherited: { ...older, modelLimits: [5] } }));
    expect(decodeCaller(bad.toString('base64'))).toBeUndefined();
  });
});
