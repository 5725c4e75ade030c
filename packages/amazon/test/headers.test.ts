import { toV1Meta, validateMeta } from '@mcp-envelope/contract';
import { describe, expect, it } from 'vitest';

import { amazonResponseMeta, perSecondRateLimit } from '../src/index.js';

const NOW = new Date('2026-09-03T12:00:00Z');
const NAMES = {
  limit: ['x-amzn-RateLimit-Limit'],
  remaining: ['x-amzn-RateLimit-Remaining'],
  reset: ['x-amzn-RateLimit-Reset'],
};

describe('a per-second limit header in both forms of _meta.rate_limit', () => {
  it('writes limit and window_seconds 1 beside limit_per_second, and v1 readers get only limit_per_second', () => {
    // spread: the envelope's _meta is an open object, ResponseMeta a closed interface
    const meta = {
      ...amazonResponseMeta({ 'X-Amzn-RateLimit-Limit': '0.5', 'x-amzn-ratelimit-remaining': '3' }, NOW, NAMES),
    };
    expect(meta).toEqual({ rate_limit: { limit: 0.5, window_seconds: 1, limit_per_second: 0.5, remaining: 3 } });
    expect(validateMeta(meta, 2)).toEqual({ valid: true });
    expect(toV1Meta(meta)).toEqual({ rate_limit: { limit_per_second: 0.5, remaining: 3 } });
    expect(validateMeta(toV1Meta(meta), 1)).toEqual({ valid: true });
  });

  it('keeps a value that is no number as its raw text in both keys', () => {
    expect(amazonResponseMeta({ 'x-amzn-ratelimit-limit': '2.0, 2.0' }, NOW, NAMES)).toEqual({
      rate_limit: { limit: '2.0, 2.0', window_seconds: 1, limit_per_second: '2.0, 2.0' },
    });
  });

  it('states no window when no limit came (a reset alone says nothing of the window)', () => {
    expect(amazonResponseMeta({ 'x-amzn-ratelimit-reset': '1777888999' }, NOW, NAMES)).toEqual({
      rate_limit: { reset_at: '1777888999' },
    });
    expect(amazonResponseMeta({ 'retry-after': '4' }, NOW, NAMES)).toEqual({ retry_after_seconds: 4 });
    expect(amazonResponseMeta(undefined, NOW, NAMES)).toEqual({});
  });

  it('leaves an object without limit_per_second as it is', () => {
    const rateLimit = { remaining: 1 };
    expect(perSecondRateLimit(rateLimit)).toBe(rateLimit);
  });
});
