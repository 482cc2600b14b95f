import { AppError, detailsOf, ErrorCode, MAX_PATTERN_WILDCARDS } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import { checkAllowModels, checkModelLimits, checkModelMapper } from './account-values.js';

function refusedField(check: () => void): unknown {
  try {
    check();
  } catch (error) {
    return error instanceof AppError
      ? { code: error.code, field: detailsOf(error, ErrorCode.InvalidRequest)?.field }
      : error;
  }
  return 'accepted';
}

describe('model patterns on an account', () => {
  const most = `gpt${'-*'.repeat(MAX_PATTERN_WILDCARDS)}`;
  const tooMany = `${most}*`;

  it.each([
    ['AllowModels', () => checkAllowModels(`gpt-4o ${tooMany}`)],
    ['ModelMapper', () => checkModelMapper(`${tooMany}=gpt-4o`)],
    ['ModelLimits', () => checkModelLimits({ [tooMany]: { rpm: 1 } })],
  ])('refuses a pattern with too many "*" in %s, naming the field', (field, check) => {
    expect(refusedField(check)).toEqual({ code: 'invalid_request', field });
  });

  it('accepts patterns up to the bound', () => {
    expect(refusedField(() => checkAllowModels(most))).toBe('accepted');
    expect(refusedField(() => checkModelMapper(`${most}=gpt-4o`))).toBe('accepted');
    expect(refusedField(() => checkModelLimits({ [most]: { rpm: 1 } }))).toBe('accepted');
  });
});
