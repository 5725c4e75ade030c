import { describe, expect, it } from 'vitest';

import * as redaction from '../src/redaction.js';

describe('the classifiers share a pattern redaction, not a redactor', () => {
  it('exports no object a secret could be registered with', () => {
    const registries = Object.entries(redaction).filter(
      ([, value]) => typeof value === 'object' && value !== null && 'registerSecret' in value,
    );
    expect(registries).toEqual([]);
  });

  it('redacts the Ads client id and an LWA token in upstream text', () => {
    expect(redaction.redactAdsText('client amzn1.application-oa2-client.abc123 token Atza|IwEBIexample')).toBe(
      'client [REDACTED] token [REDACTED]',
    );
  });
});
