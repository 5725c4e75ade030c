import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { nextPageLink, parseLinkHeader, parseProblemDetails, rateLimitSignal } from '../../src/http-kit/index.js';

const NOW = new Date('2026-03-02T10:00:00Z');
const NOW_EPOCH = NOW.getTime() / 1000;

describe('parseProblemDetails', () => {
  it('reads an application/problem+json body, keeping extension members', () => {
    const body = {
      type: 'https://example.com/probs/out-of-credit',
      title: 'You do not have enough credit.',
      status: 403,
      detail: 'Your current balance is 30, but that costs 50.',
      instance: '/account/12345/msgs/abc',
      balance: 30,
    };
    expect(parseProblemDetails(body, 'application/problem+json; charset=utf-8')).toEqual({
      type: 'https://example.com/probs/out-of-credit',
      title: 'You do not have enough credit.',
      status: 403,
      detail: 'Your current balance is 30, but that costs 50.',
      instance: '/account/12345/msgs/abc',
      extensions: { balance: 30 },
    });
  });

  it('parses the text of a problem body and drops members of the wrong type', () => {
    expect(parseProblemDetails('{"title":"Bad","status":"400","detail":7}', 'application/problem+json')).toEqual({
      title: 'Bad',
      extensions: {},
    });
  });

  it('recognizes a problem object without the content type only when it looks like one', () => {
    expect(parseProblemDetails({ type: 'about:blank', title: 'Not Found', status: 404 })).toEqual({
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      extensions: {},
    });
    expect(parseProblemDetails({ message: 'Not Found', status: '404' }, 'application/json')).toBeUndefined();
    expect(parseProblemDetails({ title: 'x', status: '404' })).toBeUndefined();
    expect(parseProblemDetails('not json', 'application/problem+json')).toBeUndefined();
    expect(parseProblemDetails([{ title: 'x' }], 'application/problem+json')).toBeUndefined();
  });

  it('keeps a member named __proto__ as data', () => {
    const problem = parseProblemDetails(JSON.parse('{"title":"t","__proto__":{"polluted":true}}'));
    expect(Object.hasOwn(problem?.extensions ?? {}, '__proto__')).toBe(true);
    expect((problem?.extensions as { polluted?: unknown }).polluted).toBeUndefined();
  });
});

describe('rateLimitSignal', () => {
  it('a 429 is a limit; Retry-After gives the wait', () => {
    expect(rateLimitSignal(429, { 'retry-after': '7' }, '', NOW)).toEqual({
      limited: true,
      reason: 'status-429',
      retryAfterSeconds: 7,
    });
    expect(rateLimitSignal(429, {}, '', NOW)).toEqual({ limited: true, reason: 'status-429' });
  });

  it("a 403 with x-ratelimit-remaining 0 and a reset is GitHub's primary limit; the wait is the time to reset", () => {
    const headers = { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW_EPOCH + 42) };
    expect(rateLimitSignal(403, headers, { message: 'API rate limit exceeded for user ID 1.' }, NOW)).toEqual({
      limited: true,
      reason: 'remaining-zero',
      retryAfterSeconds: 42,
    });
  });

  it('a 403 with Retry-After (a secondary limit) waits that long, HTTP-date included', () => {
    expect(rateLimitSignal(403, { 'Retry-After': '60' }, {}, NOW)).toEqual({
      limited: true,
      reason: 'retry-after',
      retryAfterSeconds: 60,
    });
    expect(rateLimitSignal(403, { 'Retry-After': 'Mon, 02 Mar 2026 10:00:30 GMT' }, {}, NOW)).toMatchObject({
      reason: 'retry-after',
      retryAfterSeconds: 30,
    });
  });

  it('a 403 whose message says so is a limit without a known wait', () => {
    const body = {
      message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
      documentation_url: 'https://docs.github.com/rest',
    };
    expect(rateLimitSignal(403, {}, body, NOW)).toEqual({ limited: true, reason: 'body-text' });
    expect(rateLimitSignal(403, {}, 'Too Many Requests', NOW)).toEqual({ limited: true, reason: 'body-text' });
    expect(rateLimitSignal(403, {}, { message: 'You are being rate limited.' }, NOW)).toMatchObject({ limited: true });
  });

  it('a 403 that only mentions rate limits is a refusal, not a limit: retrying would not help', () => {
    for (const message of [
      'Must have admin rights to change the rate limit settings of this organization.',
      'Your plan does not include rate limit increases.',
      'Rate limit rules can only be edited by owners.',
    ])
      expect(rateLimitSignal(403, {}, { message }, NOW)).toEqual({ limited: false });
  });

  it('a plain 403, a 403 with requests left, a 503 with Retry-After and a 200 are not limits', () => {
    expect(rateLimitSignal(403, {}, { message: 'Resource not accessible by integration' }, NOW)).toEqual({
      limited: false,
    });
    expect(
      rateLimitSignal(403, { 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': String(NOW_EPOCH + 9) }, {}, NOW),
    ).toEqual({ limited: false });
    expect(rateLimitSignal(503, { 'retry-after': '5' }, {}, NOW)).toEqual({ limited: false });
    expect(rateLimitSignal(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '5' }, {}, NOW)).toEqual({
      limited: false,
    });
  });

  it('never throws on any status, headers and body', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 599 }),
        fc.dictionary(
          fc.constantFrom('retry-after', 'ratelimit', 'x-ratelimit-remaining', 'x-ratelimit-reset'),
          fc.string(),
        ),
        fc.jsonValue(),
        (status, headers, body) => {
          expect(typeof rateLimitSignal(status, headers, body, NOW).limited).toBe('boolean');
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('parseLinkHeader / nextPageLink', () => {
  const GITHUB =
    '<https://api.github.com/repositories/1300192/issues?page=2>; rel="prev", <https://api.github.com/repositories/1300192/issues?page=4>; rel="next", <https://api.github.com/repositories/1300192/issues?page=515>; rel="last", <https://api.github.com/repositories/1300192/issues?page=1>; rel="first"';

  it("reads GitHub's pagination links in order", () => {
    expect(parseLinkHeader(GITHUB).map((link) => [link.rel, link.uri.slice(-7)])).toEqual([
      [['prev'], '?page=2'],
      [['next'], '?page=4'],
      [['last'], 'age=515'],
      [['first'], '?page=1'],
    ]);
    expect(nextPageLink({ Link: GITHUB })).toBe('https://api.github.com/repositories/1300192/issues?page=4');
  });

  it('keeps several relation types on one link, other parameters, and relative URIs as written', () => {
    expect(parseLinkHeader('</items?cursor=abc>; rel="next last"; title="More"')).toEqual([
      { uri: '/items?cursor=abc', rel: ['next', 'last'], params: { title: 'More' } },
    ]);
    expect(nextPageLink(new Headers({ link: '</items?cursor=abc>; rel="next last"' }))).toBe('/items?cursor=abc');
  });

  it('gives nothing for an absent, empty or broken header, or one without next', () => {
    expect(parseLinkHeader(undefined)).toEqual([]);
    expect(parseLinkHeader('   ')).toEqual([]);
    expect(parseLinkHeader('no angle brackets here')).toEqual([]);
    expect(nextPageLink({ link: '<https://x.test/?page=1>; rel="prev"' })).toBeUndefined();
    expect(nextPageLink(undefined)).toBeUndefined();
  });

  it('never throws on any header text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (value) => {
        expect(Array.isArray(parseLinkHeader(value))).toBe(true);
        nextPageLink({ link: value });
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.webUrl(), fc.constantFrom('next', 'prev', 'last', 'x y')), { maxLength: 4 }),
        (links) => {
          const header = links.map(([uri, rel]) => `<${uri}>; rel="${rel}"`).join(', ');
          expect(parseLinkHeader(header).length).toBeLessThanOrEqual(links.length);
        },
      ),
      { numRuns: 100 },
    );
  });
});
