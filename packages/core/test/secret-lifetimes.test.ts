import { afterEach, describe, expect, it, vi } from 'vitest';

import { createRedactor } from '../src/adapter-entry.js';
import { MAX_SHORT_LIVED_SECRETS, SHORT_LIVED_MARGIN_MS } from '../src/redact.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('secret lifetimes', () => {
  it('a long-lived secret outlives any number of short-lived ones, in every spelling', () => {
    const redactor = createRedactor({ publicPrefixes: [/^tok_/] });
    redactor.registerSecret('tok_long-lived-client-secret-0042');
    for (let index = 0; index < 3 * MAX_SHORT_LIVED_SECRETS; index += 1)
      redactor.registerSecret(`short-lived-access-token-${index}`, { expiresInSeconds: 3600 });
    const base64 = Buffer.from('tok_long-lived-client-secret-0042').toString('base64');
    expect(redactor.string(`a long-lived-client-secret-0042 b ${base64} c`)).toBe('a [REDACTED] b [REDACTED] c');
    // the bound on short-lived ones forgets the oldest of them, never the long-lived one
    expect(redactor.string('short-lived-access-token-0 x')).toBe('short-lived-access-token-0 x');
    expect(redactor.string(`short-lived-access-token-${3 * MAX_SHORT_LIVED_SECRETS - 1} x`)).toBe('[REDACTED] x');
  });

  it('a short-lived secret is kept until its expiry plus the margin, then forgotten', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00.000Z'));
    const redactor = createRedactor();
    redactor.registerSecret('Atza|opaque-value-expiring', { expiresInSeconds: 3600 });
    redactor.registerSecret('refresh-token-forever-0001');
    vi.setSystemTime(Date.now() + 3600_000 + SHORT_LIVED_MARGIN_MS - 1);
    expect(redactor.string('Atza|opaque-value-expiring')).toBe('[REDACTED]');
    vi.setSystemTime(Date.now() + 1);
    expect(redactor.mayRedact('Atza|opaque-value-expiring')).toBe(false);
    expect(redactor.string('Atza|opaque-value-expiring')).toBe('Atza|opaque-value-expiring');
    vi.setSystemTime(Date.now() + 365 * 86_400_000);
    expect(redactor.string('refresh-token-forever-0001')).toBe('[REDACTED]');
  });

  it('a value registered long-lived stays long-lived when registered again with a lifetime', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const redactor = createRedactor();
    redactor.registerSecret('shared-credential-value-77');
    redactor.registerSecret('shared-credential-value-77', { expiresInSeconds: 1 });
    vi.setSystemTime(Date.now() + 86_400_000);
    expect(redactor.string('shared-credential-value-77')).toBe('[REDACTED]');
  });
});
