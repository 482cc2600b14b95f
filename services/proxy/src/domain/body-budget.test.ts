import { describe, expect, it } from 'vitest';
import { BodyBudget } from './body-budget.js';

describe('BodyBudget', () => {
  it('refuses an account over its bound with 429 while another account still gets bytes', () => {
    const budget = new BodyBudget({ processBytes: 100, accountBytes: 60 });
    const first = budget.hold('a');
    first.take(50);
    expect(() => budget.hold('a').take(20)).toThrow(/for one account/);
    budget.hold('b').take(40);
    expect(budget.inUse()).toBe(90);
  });

  it('refuses any account once the process bound is reached, and gives the bytes back on release', () => {
    const budget = new BodyBudget({ processBytes: 100, accountBytes: 60 });
    const a = budget.hold('a');
    const b = budget.hold('b');
    a.take(60);
    b.take(40);
    expect(() => budget.hold('c').take(1)).toThrow(expect.objectContaining({ code: 'rate_limited' }));
    a.release();
    a.release();
    expect(budget.inUse()).toBe(40);
    budget.hold('c').take(60);
    expect(budget.inUse()).toBe(100);
  });
});
