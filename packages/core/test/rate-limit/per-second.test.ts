/** A learned `rate_limit` read as a rate per second, whatever window the upstream stated it in. */
import { describe, expect, it } from 'vitest';

import { headroom } from '../../src/code-mode/telemetry.js';
import { ratePerSecond } from '../../src/rate-limit/per-second.js';

describe('ratePerSecond', () => {
  it('reads limit_per_second first, then limit over window_seconds', () => {
    expect(ratePerSecond({ limit_per_second: 0.5, limit: 9, window_seconds: 1 })).toBe(0.5);
    expect(ratePerSecond({ limit_per_second: '2' })).toBe(2);
    expect(ratePerSecond({ limit: 5000, window_seconds: 3600 })).toBeCloseTo(1.3889, 4);
    expect(ratePerSecond({ limit: '60', window_seconds: 60 })).toBe(1);
  });

  it('gives nothing for a limit without a window, zero, negative or non-numeric values', () => {
    expect(ratePerSecond(undefined)).toBeUndefined();
    expect(ratePerSecond({ limit: 5000 })).toBeUndefined();
    expect(ratePerSecond({ limit: 5000, window_seconds: 0 })).toBeUndefined();
    expect(ratePerSecond({ limit: -1, window_seconds: 60 })).toBeUndefined();
    expect(ratePerSecond({ limit_per_second: 'fast', limit: 'x', window_seconds: 1 })).toBeUndefined();
  });

  it("gives Code Mode's headroom per second for an hourly limit", () => {
    expect(headroom({ limit: 7200, window_seconds: 3600, remaining: 10 })).toBe(5);
    expect(headroom({ limit_per_second: 2, remaining: 10 })).toBe(5);
    expect(headroom({ remaining: 'many' })).toBe(Number.POSITIVE_INFINITY);
  });
});
