import { describe, expect, it } from 'vitest';

import * as core from '../src/index.js';

describe('core exports only what users call', () => {
  it('keeps the call-context plumbing of context.fetch internal', () => {
    expect(Object.keys(core)).not.toContain('recordResponseMetaInto');
    // what handlers use instead: the context's own recorder, and the pattern-only redaction
    expect(typeof core.createTextRedaction).toBe('function');
  });
});
