import { describe, expect, it, vi } from 'vitest';
import { Cancellation } from './cancellation.js';

describe('Cancellation', () => {
  it('calls the listener once, when cancelled, and says so after', () => {
    const cancellation = new Cancellation();
    const onCancel = vi.fn();
    cancellation.listen(onCancel);
    expect(cancellation.cancelled).toBe(false);
    cancellation.cancel();
    cancellation.cancel();
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(cancellation.cancelled).toBe(true);
  });

  it('calls no listener that stopped listening, and only the current one', () => {
    const cancellation = new Cancellation();
    const first = vi.fn();
    const second = vi.fn();
    const stopFirst = cancellation.listen(first);
    stopFirst();
    const stopSecond = cancellation.listen(second);
    stopFirst();
    cancellation.cancel();
    expect(first).not.toHaveBeenCalled();
    expect(second).toHaveBeenCalledTimes(1);
    stopSecond();
  });
});
