import { CONTRACT_VERSION } from '@mcp-envelope/contract';
import type { ErrorEnvelope } from '@mcp-envelope/contract';
import { describe, expect, it } from 'vitest';

import type { ClassifiableFailure } from '../src/adapter.js';
import { effectUnknown, isIdempotentTool, withEffectUnknown } from '../src/effect-unknown.js';
import { toolAnnotationsForMethod } from '../src/openapi-entry.js';

const REQUEST = { method: 'POST', url: 'http://127.0.0.1:1/orders' };

function systemError(code: string): Error {
  return new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code }) });
}

function http(status: number): ClassifiableFailure {
  return { type: 'upstream_http', status, headers: {}, body: '', request: REQUEST };
}

const TIMEOUT: ClassifiableFailure = { type: 'timeout', timeoutMs: 400, request: REQUEST };

const ENVELOPE: ErrorEnvelope = {
  error_kind: 'upstream_client',
  tool: 'create_order',
  summary: 'No answer within 400 ms.',
  details: [{ path: '', issue: 'timed out after 400 ms', received_type: 'null' }],
  hints: ['Retry after a short wait.'],
  examples: [],
  error_code: 'TOOL_EXECUTION_FAILED',
  retryable: true,
  _envelope_version: CONTRACT_VERSION,
  upstream: 'orders-api',
};

describe('toolAnnotationsForMethod', () => {
  it('reads the hints from the method, in any case', () => {
    const table = Object.fromEntries(
      ['get', 'HEAD', 'options', 'trace', 'PUT', 'delete', 'post', 'PATCH', 'PROPFIND'].map((method) => {
        const hints = toolAnnotationsForMethod(method);
        return [method, [hints.readOnlyHint, hints.destructiveHint, hints.idempotentHint, hints.openWorldHint]];
      }),
    );
    expect(table).toEqual({
      get: [true, false, true, true],
      HEAD: [true, false, true, true],
      options: [true, false, true, true],
      trace: [true, false, true, true],
      PUT: [false, true, true, true],
      delete: [false, true, true, true],
      post: [false, false, false, true],
      PATCH: [false, true, false, true],
      PROPFIND: [false, true, false, true],
    });
  });

  it('makes a POST whose operation id removes or changes something destructive, as a PATCH; other POSTs add', () => {
    const destructive = (operationId: string): boolean =>
      toolAnnotationsForMethod('POST', operationId).destructiveHint === true;
    expect(
      [
        'orgs/delete-attestations-bulk',
        'enterprise-team-memberships/bulk-remove',
        'credentials/revoke',
        'actions/force-cancel-workflow-run',
        'repos/transfer',
        'cancelShipment',
        'deleteNotifications',
        'updateShipmentStatus',
      ].filter((operationId) => !destructive(operationId)),
    ).toEqual([]);
    expect(
      [
        'issues/create',
        'markdown/render',
        'createReport',
        'reports/setup',
        'settlements',
        'deleted-items/restore',
      ].filter(destructive),
    ).toEqual([]);
    expect(toolAnnotationsForMethod('POST', 'credentials/revoke')).toEqual(toolAnnotationsForMethod('PATCH'));
    expect(toolAnnotationsForMethod('GET', 'deleteLog')).toEqual(toolAnnotationsForMethod('GET'));
  });
});

describe('effectUnknown', () => {
  it('counts a timeout, a broken or cut exchange, a 500, 502, 504 and an answer too large as possibly received', () => {
    const verdicts = {
      timeout: effectUnknown(TIMEOUT),
      timeoutInBody: effectUnknown({ ...TIMEOUT, phase: 'body' }),
      reset: effectUnknown({ type: 'network', cause: systemError('ECONNRESET'), request: REQUEST }),
      noCode: effectUnknown({ type: 'network', cause: new Error('socket hang up'), request: REQUEST }),
      cutBody: effectUnknown({ type: 'network', cause: systemError('ECONNREFUSED'), phase: 'body' }),
      500: effectUnknown(http(500)),
      502: effectUnknown(http(502)),
      504: effectUnknown(http(504)),
      tooLargeBody: effectUnknown({
        type: 'response_too_large',
        subject: 'upstream_body',
        limitBytes: 4096,
        setting: 'MCP_MAX_UPSTREAM_BODY_BYTES',
      }),
      tooLargeResult: effectUnknown({
        type: 'response_too_large',
        subject: 'result',
        limitBytes: 4096,
        setting: 'MCP_MAX_RESULT_BYTES',
      }),
    };
    expect(Object.values(verdicts).every((verdict) => verdict)).toBe(true);
  });

  it('counts connections never made, statuses of requests not processed and other failures as never received', () => {
    const network = (code: string): boolean =>
      effectUnknown({ type: 'network', cause: systemError(code), request: REQUEST });
    const verdicts = [
      network('ECONNREFUSED'),
      network('ENOTFOUND'),
      network('EAI_AGAIN'),
      network('UND_ERR_CONNECT_TIMEOUT'),
      network('CERT_HAS_EXPIRED'),
      network('DEPTH_ZERO_SELF_SIGNED_CERT'),
      network('ERR_TLS_CERT_ALTNAME_INVALID'),
      ...[400, 404, 408, 409, 429, 503].map((status) => effectUnknown(http(status))),
      effectUnknown({ type: 'credential', error: new Error('token') }),
      effectUnknown({ type: 'body_coercion', path: 'body', received: '{' }),
      effectUnknown({ type: 'redirect', status: 307, location: 'https://elsewhere.example/x', reason: 'cross_origin' }),
    ];
    expect(verdicts.filter((verdict) => verdict)).toEqual([]);
  });
});

describe('isIdempotentTool and withEffectUnknown', () => {
  it('takes readOnlyHint or idempotentHint as idempotent, and no annotations as not', () => {
    expect([
      isIdempotentTool({ readOnlyHint: true }),
      isIdempotentTool({ idempotentHint: true }),
      isIdempotentTool({ readOnlyHint: false, idempotentHint: false }),
      isIdempotentTool({ destructiveHint: false }),
      isIdempotentTool(undefined),
    ]).toEqual([true, true, false, false, false]);
  });

  it('turns the timeout of a tool without annotations into the effect-unknown form, same kind and code', () => {
    expect(withEffectUnknown(ENVELOPE, TIMEOUT, undefined)).toEqual({
      ...ENVELOPE,
      retryable: false,
      details: [
        {
          path: '',
          issue:
            'The request may have reached orders-api before the call failed: whether it took effect is unknown, and create_order is not idempotent.',
          received_type: 'null',
          reason: 'effect_unknown',
        },
        ...ENVELOPE.details,
      ],
      hints: [
        'Check whether the call took effect (read the resource back, or list what the tool creates or changes) before calling it again: a repeat may do it twice.',
        ...ENVELOPE.hints,
      ],
    });
  });

  it('leaves the envelope of an idempotent tool, and of a failure never received, as it is', () => {
    expect(withEffectUnknown(ENVELOPE, TIMEOUT, toolAnnotationsForMethod('PUT'))).toBe(ENVELOPE);
    expect(withEffectUnknown(ENVELOPE, http(503), toolAnnotationsForMethod('POST'))).toBe(ENVELOPE);
  });
});
