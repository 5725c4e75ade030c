import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  capText,
  classifyUpstreamStatus,
  htmlSummary,
  isRetryableStatus,
  parseUpstreamBody,
} from '../../src/upstream-body/index.js';

const SP = { upstream: 'sp-api' } as const;
const ADS = { upstream: 'example-api' } as const;

describe('parseUpstreamBody', () => {
  it.each([undefined, null, '', '   \n'])('%j is empty', (body) => {
    expect(parseUpstreamBody(body)).toEqual({ kind: 'empty' });
  });

  it('parses JSON text, keeps parsed values, decodes bytes', () => {
    expect(parseUpstreamBody('{"errors":[{"code":"InvalidInput"}]}')).toEqual({
      kind: 'json',
      value: { errors: [{ code: 'InvalidInput' }] },
    });
    expect(parseUpstreamBody({ message: 'x' })).toEqual({ kind: 'json', value: { message: 'x' } });
    expect(parseUpstreamBody(new TextEncoder().encode('[1]'))).toEqual({ kind: 'json', value: [1] });
  });

  it('reports broken JSON with its text', () => {
    expect(parseUpstreamBody('{"errors": [')).toEqual({ kind: 'invalid_json', text: '{"errors": [' });
  });

  it('summarizes HTML pages without markup', () => {
    const page =
      '<!DOCTYPE html><html><head><title>503 Service Temporarily Unavailable</title><style>b{}</style></head><body><h1>x</h1></body></html>';
    expect(parseUpstreamBody(page)).toEqual({ kind: 'html', summary: '503 Service Temporarily Unavailable' });
    expect(parseUpstreamBody('<html><body><h1>Bad &amp; Request</h1><p>more</p></body></html>')).toEqual({
      kind: 'html',
      summary: 'Bad & Request',
    });
    expect(parseUpstreamBody('<p>oops</p>', 'text/html; charset=utf-8')).toEqual({ kind: 'html', summary: 'oops' });
    expect(htmlSummary('<html><body></body></html>')).toBe('HTML error page');
  });

  it('summarizes pages of unclosed tags without markup, and numeric references beyond Unicode without throwing', () => {
    // each of these made the old pattern-based summary rescan the rest of the page from every tag
    expect(htmlSummary('<title'.repeat(10_000))).toBe('HTML error page');
    expect(htmlSummary(`<html>${'<h1>x'.repeat(5_000)}`)).toBe(capText('x '.repeat(5_000), 200));
    expect(htmlSummary(`<html>${'<script>'.repeat(5_000)}oops`)).toBe('oops');
    expect(htmlSummary(`<html><p>oops</p>${'<!--'.repeat(5_000)}`)).toBe('oops');
    expect(htmlSummary('<h1>&#99999999; &#x110000; &#0; &#x1F600;</h1>')).toBe('\ufffd \ufffd \ufffd \u{1F600}');
  });

  it('drops hidden elements only when they are closed, as before', () => {
    expect(
      htmlSummary(
        '<html><head><style>b{}</style></head><body><script>var x = "<p>";</script><p>shown</p></body></html>',
      ),
    ).toBe('shown');
    expect(htmlSummary('<html><body><script>kept, never closed<p>too</p></body></html>')).toBe(
      'kept, never closed too',
    );
    expect(htmlSummary('<html><body><!-- hidden --><p>a &lt;b&gt;</p><titlex>not a title</titlex></body></html>')).toBe(
      'a <b> not a title',
    );
  });

  it('keeps plain text, capped', () => {
    expect(parseUpstreamBody('Service Unavailable')).toEqual({ kind: 'text', text: 'Service Unavailable' });
    const long = parseUpstreamBody('x'.repeat(600));
    expect(long.kind === 'text' ? long.text.length : 0).toBe(500);
  });
});

describe('capText', () => {
  it('collapses whitespace and cuts with an ellipsis', () => {
    expect(capText('a \n  b')).toBe('a b');
    expect(capText('abcdef', 4)).toBe('abc…');
  });

  it("gives what collapsing the whole text gives when it collapses only a long text's prefix", () => {
    // the definition: collapse everything, then cut
    const reference = (text: string, limit: number): string => {
      const collapsed = text.replace(/\s+/g, ' ').trim();
      return collapsed.length <= limit ? collapsed : `${collapsed.slice(0, Math.max(0, limit - 1))}…`;
    };
    const text = fc.string({
      unit: fc.constantFrom('a', 'b', ' ', '  ', '\n\t ', '\u00a0', '\u2028', '\u3000', '\ufeff', '\ud83d\ude00', '.'),
      maxLength: 400,
    });
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 80 }), (input, limit) => {
        expect(capText(input, limit)).toBe(reference(input, limit));
      }),
      { numRuns: 3000 },
    );
    expect(capText(`ab${' '.repeat(30)}cd efgh`, 5)).toBe('ab c…');
    expect(capText(`${' '.repeat(40)}x`, 5)).toBe('x');
    expect(capText('abcdefghijklmnop', 5)).toBe('abcd…');
    expect(capText('abcdefghijklmnop', 0)).toBe('…');
  });
});

describe('classifyUpstreamStatus', () => {
  it.each([
    [429, SP, { error_kind: 'rate_limited', error_code: 'RATE_LIMITED', retryable: true, upstream: 'sp-api' }],
    [429, ADS, { error_kind: 'rate_limited', error_code: 'RATE_LIMITED', retryable: true, upstream: 'example-api' }],
    [401, SP, { error_kind: 'auth_error', error_code: 'UPSTREAM_HTTP_401', retryable: false, upstream: 'sp-api' }],
    [
      403,
      ADS,
      { error_kind: 'auth_error', error_code: 'UPSTREAM_HTTP_403', retryable: false, upstream: 'example-api' },
    ],
    [400, SP, { error_kind: 'upstream_http', error_code: 'UPSTREAM_HTTP_400', retryable: false, upstream: 'sp-api' }],
    [
      404,
      ADS,
      { error_kind: 'upstream_http', error_code: 'UPSTREAM_HTTP_404', retryable: false, upstream: 'example-api' },
    ],
    [408, SP, { error_kind: 'upstream_http', error_code: 'UPSTREAM_HTTP_408', retryable: true, upstream: 'sp-api' }],
    [500, SP, { error_kind: 'upstream_http', error_code: 'UPSTREAM_HTTP_500', retryable: true, upstream: 'sp-api' }],
    [
      504,
      ADS,
      { error_kind: 'upstream_http', error_code: 'UPSTREAM_HTTP_504', retryable: true, upstream: 'example-api' },
    ],
  ] as const)('%i (%o)', (status, family, expected) => {
    expect(classifyUpstreamStatus(status, family)).toEqual(expected);
  });

  it('retryable statuses', () => {
    expect([400, 408, 409, 429, 499, 500, 599].map(isRetryableStatus)).toEqual([
      false,
      true,
      false,
      true,
      false,
      true,
      true,
    ]);
  });
});
