import { accounts } from '@gw/proto';
import { describe, expect, it } from 'vitest';
import { userInfoView } from '../account-views.js';
import { getInfo } from './get.js';

describe('GET /x-info', () => {
  it('requires user, naming it', () => {
    const parsed = getInfo.doc.query?.safeParse({});
    expect(parsed?.success).toBe(false);
    expect(JSON.stringify(parsed?.error?.issues)).toContain('user');
    expect(getInfo.doc.query?.safeParse({ user: 'alice01' }).success).toBe(true);
  });

  it("answers the account's ModelMapper and LevelMapper", () => {
    const account = accounts.Account.fromPartial({ modelMapper: 'gpt-4=gpt-4o', levelMapper: 'gpt-4o=3' });
    const usage = { today: { requests: 0, tokens: 0 }, month: { requests: 0, tokens: 0 } };
    expect(userInfoView(account, usage)).toMatchObject({
      model_mapper: 'gpt-4=gpt-4o',
      level_mapper: 'gpt-4o=3',
    });
  });
});
