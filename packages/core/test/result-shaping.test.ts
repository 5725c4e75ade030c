/**
 * Result shaping on its own: a handler's value as the wire result of each era, the call's
 * telemetry merged in, forged telemetry dropped, secrets redacted; and the `CallFailed` each
 * value that cannot be sent throws for the call's one exit.
 */
import { describe, expect, it } from 'vitest';

import { CallFailed } from '../src/call-exit.js';
import type { CallFailure } from '../src/types.js';
import { toolResult, UpstreamClientError } from '../src/index.js';
import type { EnvelopeTool } from '../src/index.js';
import { createResultShaper } from '../src/result-shaping.js';
import type { ToolEntry } from '../src/tool-registry.js';
import type { CallRecord } from '../src/types.js';
import { testRegistry, testServerEnvironment } from './fixtures/call-path.js';
import { testAdapter } from './fixtures/test-adapter.js';
import { captureLog } from './fixtures/log-capture.js';

function entryOf(tool: Partial<EnvelopeTool> = {}): ToolEntry {
  const full: EnvelopeTool = { name: 'shape_me', inputSchema: { type: 'object' }, handler: () => undefined, ...tool };
  const entry = testRegistry([full], captureLog().logger).get(full.name);
  if (entry === undefined) throw new Error('the tool was not registered');
  return entry;
}

function callRecord(): CallRecord {
  return {
    tool: 'shape_me',
    adapter: testAdapter,
    normalized: [],
    signal: new AbortController().signal,
    rateLimit: { limit: 5, window_seconds: 1 },
    retryAfterSeconds: undefined,
    warnings: undefined,
  };
}

/** A shaper whose success `_meta` is `{ rate_limit }` of the call, with a result limit of `maxResultBytes`. */
function shaperOf(maxResultBytes = 1_000_000) {
  const { redactor } = testServerEnvironment(captureLog().logger);
  return createResultShaper({
    redactor,
    limits: { MCP_MAX_UPSTREAM_BODY_BYTES: 1_000_000, MCP_MAX_RESULT_BYTES: maxResultBytes },
    successMeta: (call) => (call.rateLimit === undefined ? undefined : { rate_limit: call.rateLimit }),
  });
}

/** What `shape` threw, as the call's exit would read it. */
function failureOf(shape: () => unknown): CallFailure {
  try {
    shape();
  } catch (error) {
    if (error instanceof CallFailed) return error.failure;
    throw error;
  }
  throw new Error('shape did not fail');
}

describe('result shaping', () => {
  it('sends a plain object in both channels with the call telemetry merged into its _meta', () => {
    const result = shaperOf().shape({ order: 'A1', _meta: { page: 2 } }, entryOf(), callRecord(), 'legacy');
    const data = { order: 'A1', _meta: { rate_limit: { limit: 5, window_seconds: 1 }, page: 2 } };
    expect(result).toEqual({ content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data });
  });

  it('drops telemetry keys a data value forged in its own _meta', () => {
    const forged = { order: 'A1', _meta: { warnings: [{ kind: 'fake' }], retry_after_seconds: 999 } };
    const result = shaperOf().shape(forged, entryOf(), callRecord(), 'legacy');
    expect(result).toMatchObject({
      structuredContent: { order: 'A1', _meta: { rate_limit: { limit: 5, window_seconds: 1 } } },
    });
    expect(JSON.stringify(result)).not.toContain('999');
  });

  it('sends a string as text in the legacy era, and also as structuredContent in the modern era', () => {
    const shaper = shaperOf();
    expect(shaper.shape('hello', entryOf(), callRecord(), 'legacy')).toEqual({
      content: [{ type: 'text', text: 'hello' }],
    });
    expect(shaper.shape('hello', entryOf(), callRecord(), 'modern')).toEqual({
      content: [{ type: 'text', text: 'hello' }],
      structuredContent: 'hello',
    });
  });

  it('redacts a credential the adapter names, in both channels', () => {
    const result = shaperOf().shape({ token: 'tok_ABCDEFGH1234' }, entryOf(), callRecord(), 'legacy');
    expect(JSON.stringify(result)).not.toContain('tok_ABCDEFGH1234');
    expect((result as { structuredContent: { token: string } }).structuredContent.token).toBe('[REDACTED]');
  });

  it('throws an internal failure for a Map, naming the class in the log message', () => {
    const failure = failureOf(() => shaperOf().shape(new Map(), entryOf(), callRecord(), 'legacy'));
    expect(failure).toMatchObject({ type: 'internal', reason: 'result' });
    expect((failure as { error: Error }).error.message).toBe(
      'tool "shape_me" returned a Map object; return plain JSON data (an object literal, array, string, number, boolean or null)',
    );
  });

  it('throws an internal failure for a value off the tool outputSchema', () => {
    const entry = entryOf({
      outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
    });
    const failure = failureOf(() => shaperOf().shape({ count: 'three' }, entry, callRecord(), 'legacy'));
    expect(failure).toMatchObject({ type: 'internal', reason: 'result' });
    expect((failure as { error: Error }).error.message).toMatch(
      /^tool "shape_me" returned structuredContent that does not match its outputSchema: /,
    );
  });

  it('throws a result too large as an upstream client failure for the adapter to word', () => {
    const failure = failureOf(() => shaperOf(200).shape('x'.repeat(500), entryOf(), callRecord(), 'legacy'));
    expect(failure.type).toBe('thrown');
    const error = (failure as { error: unknown }).error;
    expect(UpstreamClientError.isInstance(error)).toBe(true);
    expect((error as UpstreamClientError).failure).toEqual({
      type: 'response_too_large',
      subject: 'result',
      limitBytes: 200,
      setting: 'MCP_MAX_RESULT_BYTES',
    });
  });

  it('throws a handler-built isError result for the exit to read its envelope', () => {
    const built = toolResult({ isError: true, content: [{ type: 'text', text: 'nope' }] });
    const failure = failureOf(() => shaperOf().shape(built, entryOf(), callRecord(), 'legacy'));
    expect(failure).toMatchObject({
      type: 'error_result',
      result: { isError: true, content: [{ type: 'text', text: 'nope' }] },
    });
  });
});
