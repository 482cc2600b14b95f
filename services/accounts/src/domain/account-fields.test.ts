import { AppError } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import { assertFieldValues } from './account-fields.js';

function refusal(run: () => void): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.message : String(error);
  }
}

describe('assertFieldValues', () => {
  it('takes AllowIPs of addresses and CIDRs, IPv4 and IPv6, separated by spaces or commas', () => {
    expect(
      refusal(() => assertFieldValues({ allowIps: '10.0.0.0/8, 192.0.2.1 2001:db8::/32,::ffff:10.0.0.1' })),
    ).toBe(undefined);
    expect(refusal(() => assertFieldValues({ allowIps: '' }))).toBe(undefined);
  });

  it('refuses an AllowIPs entry that is neither, naming it', () => {
    expect(refusal(() => assertFieldValues({ allowIps: '10.0.0.0/8 example.com' }))).toContain(
      '"example.com"',
    );
    expect(refusal(() => assertFieldValues({ allowIps: '10.0.0.0/33' }))).toContain('"10.0.0.0/33"');
    expect(refusal(() => assertFieldValues({ allowIps: '2001:db8::/129' }))).toContain('"2001:db8::/129"');
  });

  it('refuses negative limits and rates that are not positive', () => {
    expect(refusal(() => assertFieldValues({ rpm: -1n }))).toContain('rpm');
    expect(refusal(() => assertFieldValues({ dailyLimitNano: -1n }))).toContain('dailyLimitNano');
    expect(refusal(() => assertFieldValues({ rates: 0 }))).toContain('Rates');
    expect(refusal(() => assertFieldValues({ rpm: 0n, dailyLimitNano: 0n, rates: 1.5 }))).toBe(undefined);
  });
});
