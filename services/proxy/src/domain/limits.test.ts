import { describe, expect, it } from 'vitest';
import { LocalLimiter } from './local-limiter.js';
import { modelLimitTable, rateLimitWindows, windowsFor, type LimitWindow } from './limits.js';

describe('windowsFor', () => {
  const sources = {
    accountId: '7',
    account: { rpm: 2, tpd: 1000 },
    modelLimits: [
      modelLimitTable({ 'gpt-4o*': { rpm: 5 }, 'gpt-4o-mini': { tpm: 300 } }),
      modelLimitTable({ 'gpt-4o*': { rpm: 50, rph: 100 }, '*': { rpd: 1 } }),
      modelLimitTable({ '*': { tpm: 9999, rpd: 999 } }),
    ],
  };

  it("holds a call to the account's own windows and, field by field, the first source that limits the model", () => {
    expect(windowsFor(sources, 'gpt-4o-mini')).toEqual([
      { scope: 'a:7', field: 'rpm', limit: 2 },
      { scope: 'a:7', field: 'tpd', limit: 1000 },
      // rpm from the account's ModelLimits (most specific there: gpt-4o*), rph from the owner's.
      { scope: 'm:7:0:gpt-4o*', field: 'rpm', limit: 5 },
      { scope: 'm:7:1:gpt-4o*', field: 'rph', limit: 100 },
      // rpd: the owner's gpt-4o* does not set it, its less specific * does.
      { scope: 'm:7:1:*', field: 'rpd', limit: 1 },
      { scope: 'm:7:0:gpt-4o-mini', field: 'tpm', limit: 300 },
    ]);
  });

  it("holds a call to every ancestor's ModelLimits matching the model too, the smallest per pattern, ahead of the owner's", () => {
    const nested = {
      accountId: '9',
      account: {},
      // The child cleared its own ModelLimits: its parent's and grandparent's still bind it.
      modelLimits: [modelLimitTable({}), modelLimitTable({ 'gpt-4o*': { rpm: 50 } })],
      inherited: [
        modelLimitTable({ 'gpt-4o-mini': { rpm: 5 } }),
        modelLimitTable({ 'gpt-4o-mini': { rpm: 3, tpm: 100 }, 'gpt-4o*': { rpm: 8 } }),
      ],
    };
    expect(windowsFor(nested, 'gpt-4o-mini')).toEqual([
      { scope: 'm:9:0:gpt-4o-mini', field: 'rpm', limit: 3 },
      { scope: 'm:9:0:gpt-4o-mini', field: 'tpm', limit: 100 },
    ]);
    // A child's own pattern and a broader one of its parent's each hold the call.
    const own = { ...nested, modelLimits: [modelLimitTable({ 'gpt-4o-mini*': { rpm: 6 } })] };
    expect(
      windowsFor({ ...own, inherited: [modelLimitTable({ 'gpt-4o*': { rpm: 5 } })] }, 'gpt-4o-mini'),
    ).toEqual([
      { scope: 'm:9:0:gpt-4o-mini*', field: 'rpm', limit: 6 },
      { scope: 'm:9:0:gpt-4o*', field: 'rpm', limit: 5 },
    ]);
  });

  it('applies only the account windows to a call that names no model', () => {
    expect(windowsFor(sources, '').map((w) => w.scope)).toEqual(['a:7', 'a:7']);
  });

  it('ignores fields that are not positive whole numbers', () => {
    expect(
      windowsFor(
        { accountId: '1', account: {}, modelLimits: [modelLimitTable({ m: { rpm: 0, tpm: -1, rph: 1.5 } })] },
        'm',
      ),
    ).toEqual([]);
  });
});

describe('the sliding window, at its boundaries', () => {
  const rpm: LimitWindow = { scope: 'a:1', field: 'rpm', limit: 3 };
  const tpm: LimitWindow = { scope: 'a:1', field: 'tpm', limit: 100 };
  const t0 = 1_800_000_000_000; // a whole second

  it('admits the Nth request, refuses the N+1th without counting it, and frees once the window has passed', async () => {
    const limiter = new LocalLimiter();
    for (let i = 0; i < 3; i += 1) {
      expect((await limiter.admit([rpm], t0 + i * 100)).ok).toBe(true);
    }
    const refused = await limiter.admit([rpm], t0 + 500);
    expect(refused.ok).toBe(false);
    // The oldest request's bucket (t0) stops counting once a whole window lies past it.
    expect(refused.retryAt).toBe(t0 + 61_000);
    expect((await limiter.admit([rpm], t0 + 60_999)).ok).toBe(false);
    expect((await limiter.admit([rpm], t0 + 61_000)).ok).toBe(true);
  });

  it('checks all windows before counting any: a refusal consumes nothing', async () => {
    const limiter = new LocalLimiter();
    const rpd: LimitWindow = { scope: 'a:1', field: 'rpd', limit: 200 };
    for (let i = 0; i < 3; i += 1) {
      await limiter.admit([rpm, rpd], t0 + i);
    }
    expect((await limiter.admit([rpm, rpd], t0 + 10)).ok).toBe(false);
    const next = await limiter.admit([rpd], t0 + 20);
    expect(next.windows[0]?.count).toBe(4);
  });

  it('refuses while a token window is full and counts tokens once usage is known', async () => {
    const limiter = new LocalLimiter();
    expect((await limiter.admit([tpm], t0)).ok).toBe(true);
    await limiter.addTokens([tpm], 99, t0);
    expect((await limiter.admit([tpm], t0 + 1)).ok).toBe(true);
    await limiter.addTokens([tpm], 1, t0 + 1);
    expect((await limiter.admit([tpm], t0 + 2)).ok).toBe(false);
  });

  it('gives back a request refused after admission', async () => {
    const limiter = new LocalLimiter();
    for (let i = 0; i < 3; i += 1) {
      await limiter.admit([rpm], t0);
    }
    await limiter.refund([rpm], t0);
    expect((await limiter.admit([rpm], t0 + 1)).ok).toBe(true);
  });
});

describe('rateLimitWindows', () => {
  it('shows the tightest request and token windows', () => {
    const now = 1_000_000;
    const shown = rateLimitWindows(
      [
        { window: { scope: 'a', field: 'rpm', limit: 10 }, count: 4, freesAt: now + 1_500 },
        { window: { scope: 'a', field: 'rpd', limit: 100 }, count: 99, freesAt: now + 3_600_000 },
        { window: { scope: 'a', field: 'tpm', limit: 1000 }, count: 250, freesAt: now + 360_000 },
      ],
      now,
    );
    expect(shown).toEqual({
      requests: { limit: 100, remaining: 1, resetMs: 3_600_000 },
      tokens: { limit: 1000, remaining: 750, resetMs: 360_000 },
    });
  });

  it('never says a window resets at once while it counts a call, as the first call of a window', () => {
    const now = 1_000_250;
    // The store saw nothing before this call (freesAt = now); the call itself is counted.
    const shown = rateLimitWindows(
      [{ window: { scope: 'a', field: 'rpm', limit: 10 }, count: 1, freesAt: now }],
      now,
    );
    // Its one-second bucket (from 1_000_000) stops counting a minute and a bucket later.
    expect(shown).toEqual({
      requests: { limit: 10, remaining: 9, resetMs: 1_000_000 + 60_000 + 1_000 - now },
    });
    expect(shown.tokens).toBeUndefined();
  });
});
