import { describe, expect, it } from 'vitest';
import { decodeCaller, encodeCaller, NO_INHERITED, type CallerIdentity } from './caller.js';

const caller: CallerIdentity = {
  accountId: '9',
  ownerId: '1',
  allowModels: '',
  allowLevels: '',
  modelMapper: '',
  resources: '',
  limits: {},
  modelLimits: '',
  inherited: { ...NO_INHERITED, modelLimits: ['{"gpt-4o-mini":{"rpm":5}}'] },
};

describe('the caller identity header', () => {
  it("carries the ancestors' ModelLimits, and reads an edge that predates them as none", () => {
    expect(decodeCaller(encodeCaller(caller))?.inherited.modelLimits).toEqual(['{"gpt-4o-mini":{"rpm":5}}']);
    const { modelLimits: _none, ...older } = caller.inherited;
    const header = Buffer.from(JSON.stringify({ ...caller, inherited: older })).toString('base64');
    expect(decodeCaller(header)?.inherited.modelLimits).toEqual([]);
    const bad = Buffer.from(JSON.stringify({ ...caller, inherited: { ...older, modelLimits: [5] } }));
    expect(decodeCaller(bad.toString('base64'))).toBeUndefined();
  });
});
