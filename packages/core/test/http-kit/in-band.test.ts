import { describe, expect, it } from 'vitest';

import { inBandError, inBandStatus, restInBandFailure } from '../../src/http-kit/index.js';

describe('inBandError: the common forms of a failure in a 2xx body', () => {
  const notFound = { code: 'NotFound', message: 'No such widget.' };

  it.each([
    ['an object of nothing but error', { error: notFound }, notFound],
    ['error beside _meta only', { error: notFound, _meta: { request: 'r-1' } }, notFound],
    ['a non-empty error string alone', { error: 'quota exhausted' }, 'quota exhausted'],
    ['a non-empty errors list without data', { errors: [notFound] }, [notFound]],
    ['errors beside data: null', { errors: [notFound], data: null }, [notFound]],
    ['errors beside other keys and no data key', { errors: [notFound], extensions: { cost: 1 } }, [notFound]],
  ])('finds %s', (_, body, expected) => {
    expect(inBandError(body)).toEqual(expected);
  });

  it.each([
    ['an empty errors list', { errors: [] }],
    ['error: null beside items', { error: null, items: [] }],
    ['error beside data', { error: notFound, id: 7 }],
    ['errors beside data', { errors: [notFound], data: { id: 7 } }],
    ['an empty object', {}],
    ['an array', [{ error: notFound }]],
    ['text', 'error: not found'],
    ['an empty error string', { error: '' }],
    ['null', null],
  ])('keeps %s as data', (_, body) => {
    expect(inBandError(body)).toBeUndefined();
  });

  it('reads the data keys an upstream names: errors beside a payload is data, errors without one a failure', () => {
    expect(inBandError({ errors: [notFound], payload: { id: 1 } }, { dataKeys: ['payload'] })).toBeUndefined();
    expect(inBandError({ errors: [notFound], payload: null }, { dataKeys: ['payload'] })).toEqual([notFound]);
  });
});

describe('inBandStatus: the status a code word means', () => {
  it.each([
    [{ code: 'NotFound' }, 404],
    [{ code: 'NOT_FOUND' }, 404],
    [{ status: 'not-found' }, 404],
    [{ code: 'InvalidInput' }, 400],
    [{ code: 'INVALID_ARGUMENT' }, 400],
    [{ code: 'Unauthorized' }, 401],
    [{ code: 'AccessDenied' }, 403],
    [{ code: 'QuotaExceeded' }, 429],
    [{ reason: 'RATE_LIMITED' }, 429],
    [{ type: 'THROTTLED' }, 429],
    [{ code: 'InternalFailure' }, 500],
    [{ code: 'ServiceUnavailable' }, 503],
    [{ code: 'DEADLINE_EXCEEDED' }, 504],
    [{ code: 404, message: 'gone' }, 404],
    [{ code: '422' }, 422],
    [{ code: 'SomethingElse' }, 500],
    [{ message: 'no code at all' }, 500],
    ['a string', 500],
  ])('%j means %i', (found, status) => {
    expect(inBandStatus(found)).toBe(status);
  });

  it('takes the first item of a list whose code is known', () => {
    expect(inBandStatus([{ code: 'Odd' }, { code: 'QuotaExceeded' }, { code: 'NotFound' }])).toBe(429);
  });

  it("reads an upstream's own words first, without case or separators", () => {
    expect(inBandStatus({ code: 'Unauthorized' }, { unauthorized: 403 })).toBe(403);
    expect(inBandStatus({ code: 'WIDGET_GONE' }, { WidgetGone: 410 })).toBe(410);
  });
});

describe('restInBandFailure', () => {
  it('is the status of the failure found, or undefined for data', () => {
    expect(restInBandFailure({ errors: [{ code: 'NOT_FOUND', message: 'x' }] })).toEqual({ status: 404 });
    expect(restInBandFailure({ error: { code: 'Forbidden' } })).toEqual({ status: 403 });
    expect(restInBandFailure({ errors: [], items: [1] })).toBeUndefined();
  });
});
