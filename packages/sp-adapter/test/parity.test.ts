/**
 * Contract v2 promises one handler for every server: the same condition gives the same kind, code
 * and retryability on SP and Ads, and only `upstream` tells the two apart. Readers of v1 still get
 * each server's own spelling.
 */
import { toV1Envelope } from '@mcp-envelope/contract';
import type { ErrorEnvelope } from '@mcp-envelope/contract';
import { adsAdapter } from '@mcp-envelope/ads-adapter';
import type { ClassifiableFailure, ClassifiedError, EnvelopeAdapter } from '@mcp-envelope/core';
import { describe, expect, it } from 'vitest';

import { spAdapter } from '../src/index.js';

const CONTEXT = { tool: 'a_tool', now: new Date('2026-09-03T12:00:00Z') };

const SERVERS = [
  { adapter: spAdapter, origin: 'https://sellingpartnerapi-na.amazon.com', upstream: 'sp-api', v1: 'SP_API_HTTP_' },
  { adapter: adsAdapter, origin: 'https://advertising-api.amazon.com', upstream: 'ads-api', v1: 'ADS_API_HTTP_' },
] as const;

/** One condition, as the failure core would hand to an adapter whose upstream lives at `origin`. */
type Condition = (origin: string) => ClassifiableFailure;

function httpAnswer(status: number): Condition {
  return (origin) => ({
    type: 'upstream_http',
    status,
    headers: { 'content-type': 'application/json' },
    body: { message: 'recorded answer' },
    request: { method: 'GET', url: `${origin}/reports/7` },
  });
}

const connectionReset: Condition = (origin) => ({
  type: 'network',
  cause: Object.assign(new TypeError('fetch failed'), {
    cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
  }),
  request: { method: 'GET', url: `${origin}/reports/7` },
});

const timedOut: Condition = (origin) => ({
  type: 'timeout',
  timeoutMs: 2000,
  request: { method: 'GET', url: `${origin}/reports/7` },
});

const brokenJsonBody: Condition = () => ({ type: 'body_coercion', path: 'body', received: '{"name":' });

/** Condition -> the v2 kind, code and retryability both servers must give. */
const CONDITIONS: readonly (readonly [string, Condition, string, string, boolean])[] = [
  ['HTTP 404', httpAnswer(404), 'upstream_http', 'UPSTREAM_HTTP_404', false],
  ['HTTP 500', httpAnswer(500), 'upstream_http', 'UPSTREAM_HTTP_500', true],
  ['HTTP 503', httpAnswer(503), 'upstream_http', 'UPSTREAM_HTTP_503', true],
  ['HTTP 401', httpAnswer(401), 'auth_error', 'UPSTREAM_HTTP_401', false],
  ['HTTP 403', httpAnswer(403), 'auth_error', 'UPSTREAM_HTTP_403', false],
  ['HTTP 429', httpAnswer(429), 'rate_limited', 'RATE_LIMITED', true],
  ['connection reset', connectionReset, 'upstream_client', 'TOOL_EXECUTION_FAILED', true],
  ['timeout', timedOut, 'upstream_client', 'TOOL_EXECUTION_FAILED', true],
  ['body coercion', brokenJsonBody, 'upstream_client', 'BODY_COERCION_INVALID_JSON', false],
];

function classify(adapter: EnvelopeAdapter, origin: string, condition: Condition): ClassifiedError {
  return adapter.classify(condition(origin), CONTEXT);
}

/** The v2 envelope core builds from a verdict (what a reader of v2 gets, before `_meta`). */
function v2Envelope(classified: ClassifiedError): ErrorEnvelope {
  return {
    error_kind: classified.error_kind,
    tool: CONTEXT.tool,
    summary: classified.summary,
    details: classified.details,
    hints: classified.hints,
    examples: [],
    error_code: classified.error_code,
    retryable: classified.retryable,
    _envelope_version: 2,
    ...(classified.upstream === undefined ? {} : { upstream: classified.upstream }),
  };
}

describe('SP and Ads give the same v2 verdict for the same condition, differing only in upstream', () => {
  it.each(CONDITIONS)('%s -> %s / %s', (_name, condition, kind, code, retryable) => {
    const verdicts = SERVERS.map(({ adapter, origin }) => classify(adapter, origin, condition));
    expect(verdicts.map((verdict) => [verdict.error_kind, verdict.error_code, verdict.retryable])).toEqual([
      [kind, code, retryable],
      [kind, code, retryable],
    ]);
    expect(verdicts.map((verdict) => verdict.upstream)).toEqual(['sp-api', 'ads-api']);
  });

  it('each advertises the same v2 kinds and its own upstreams', () => {
    expect([...spAdapter.errorKinds].sort()).toEqual([...adsAdapter.errorKinds].sort());
    expect(spAdapter.upstreams).toEqual(['sp-api', 'openbridge']);
    expect(adsAdapter.upstreams).toEqual(['ads-api']);
  });
});

describe('readers of v1 still get each server its own spelling of the same verdict', () => {
  it.each(CONDITIONS)('%s', (_name, condition, kind, code) => {
    const v1 = SERVERS.map(({ adapter, origin }) => toV1Envelope(v2Envelope(classify(adapter, origin, condition))));
    const vendorKind = (server: string): string =>
      kind === 'upstream_http' ? `${server}_api_http` : kind === 'upstream_client' ? `${server}_api_client` : kind;
    const vendorCode = (prefix: string): string =>
      code.startsWith('UPSTREAM_HTTP_') ? `${prefix}${code.slice('UPSTREAM_HTTP_'.length)}` : code;
    expect(v1.map((envelope) => [envelope?.error_kind, envelope?.error_code, envelope?._envelope_version])).toEqual([
      [vendorKind('sp'), vendorCode(SERVERS[0].v1), 1],
      [vendorKind('ads'), vendorCode(SERVERS[1].v1), 1],
    ]);
    expect(v1.some((envelope) => envelope !== undefined && Object.hasOwn(envelope, 'upstream'))).toBe(false);
  });
});
