import { describe, expect, it } from 'vitest';

import { endpointUrlProblem, isLoopbackUrl } from '../src/endpoint-url.js';

describe('endpointUrlProblem', () => {
  it.each([
    'https://api.example.com',
    'https://api.example.com/v1/',
    'http://127.0.0.1:8080',
    'http://127.10.0.3/token',
    'http://localhost:3000/api',
    'http://LOCALHOST',
    'http://[::1]:9000/',
  ])('accepts %s', (value) => {
    expect(endpointUrlProblem(value)).toBeUndefined();
  });

  it.each([
    ['api.example.com', 'is not an absolute URL'],
    ['', 'is not an absolute URL'],
    ['ftp://api.example.com', 'must be an http(s) URL'],
    [
      'http://api.example.com',
      'must be an https URL (plain http only to a loopback host: 127.0.0.1, [::1], localhost)',
    ],
    // a name that only starts like a loopback address is another host
    [
      'http://127.0.0.1.attacker.example',
      'must be an https URL (plain http only to a loopback host: 127.0.0.1, [::1], localhost)',
    ],
    [
      'http://localhost.attacker.example',
      'must be an https URL (plain http only to a loopback host: 127.0.0.1, [::1], localhost)',
    ],
    ['https://user:s3cret@api.example.com', 'must not carry a user name or password'],
    ['https://api.example.com/?key=s3cret', 'must not carry a query string or a fragment'],
    ['https://api.example.com/#s3cret', 'must not carry a query string or a fragment'],
    ['https://api.example.com/ s3cret', 'must not contain blanks or line breaks'],
  ])('refuses %j: %s', (value, problem) => {
    expect(endpointUrlProblem(value)).toBe(problem);
  });

  it('never quotes the value', () => {
    for (const value of ['https://u:s3cret@h.example', 'http://s3cret.example', 's3cret', 'https://h.example/?s3cret'])
      expect(endpointUrlProblem(value)).not.toContain('s3cret');
  });
});

describe('isLoopbackUrl', () => {
  it('names loopback hosts only', () => {
    expect(isLoopbackUrl(new URL('http://127.0.0.1:1'))).toBe(true);
    expect(isLoopbackUrl(new URL('http://[::1]'))).toBe(true);
    expect(isLoopbackUrl(new URL('http://0.0.0.0'))).toBe(false);
    expect(isLoopbackUrl(new URL('http://10.0.0.1'))).toBe(false);
  });
});
