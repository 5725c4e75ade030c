import { describe, expect, it } from 'vitest';

import { createRedactor, createTextRedaction } from '../src/adapter-entry.js';

describe('createTextRedaction', () => {
  it('applies the defaults and the adapter patterns like a redactor', () => {
    const options = { patterns: [/tok_[a-z0-9]+/g] };
    const text = 'Authorization: Bearer abcdefghijkl and tok_abc123';
    expect(createTextRedaction(options)(text)).toBe(createRedactor(options).string(text));
    expect(createTextRedaction(options)(text)).not.toContain('tok_abc123');
  });

  it('knows no registered secret: those stay with the server that learned them', () => {
    const serverRedactor = createRedactor();
    serverRedactor.registerSecret('opaque-secret-value-123');
    const shared = createTextRedaction();
    expect(serverRedactor.string('got opaque-secret-value-123')).toBe('got [REDACTED]');
    expect(shared('got opaque-secret-value-123')).toBe('got opaque-secret-value-123');
  });
});
