import { describe, expect, it } from 'vitest';

import * as redaction from '../src/redaction.js';

describe('the classifiers share a pattern redaction, not a redactor', () => {
  it('exports no object a secret could be registered with', () => {
    const registries = Object.entries(redaction).filter(
      ([, value]) => typeof value === 'object' && value !== null && 'registerSecret' in value,
    );
    expect(registries).toEqual([]);
  });

  it('redacts an AWS access key id and an LWA token in upstream text', () => {
    expect(redaction.redactSpText('key AKIAABCDEFGHIJKLMNOP token Atza|IwEBIexample')).toBe(
      'key [REDACTED] token [REDACTED]',
    );
  });
});
