import { describe, expect, it } from 'vitest';

import { createAmazonRedactor } from '@mcp-envelope/amazon';

import { redactSpText, SP_REDACTION_PATTERNS } from '../src/redaction.js';

describe('SP redaction', () => {
  it.each([
    ['access token', 'token Atza|IwEBIAbCdEf0123456789 used', 'token [REDACTED] used'],
    ['refresh token', '"refresh_token":"Atzr|IwEBIZyXw987"', '"refresh_token":"[REDACTED]"'],
    ['URL-encoded refresh token', 'grant=Atzr%7CIwEBIZyXw987&x=1', 'grant=[REDACTED]&x=1'],
    ['restricted data token', 'rdt Atz.sprdt|IQEBLjAsAhQexample done', 'rdt [REDACTED] done'],
    ['client secret', 'secret amzn1.oa2-cs.v1.0a1b2c3d4e5f67890a1b2c3d4e5f6789 here', 'secret [REDACTED] here'],
    [
      'client_secret field',
      'client_secret=abcDEF123&grant_type=refresh_token',
      'client_secret=[REDACTED]&grant_type=refresh_token',
    ],
    ['access key id', 'key AKIAIOSFODNN7EXAMPLE!', 'key [REDACTED]!'],
    [
      'secret access key',
      'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'aws_secret_access_key = [REDACTED]',
    ],
    ['authorization header', 'Authorization: Bearer abc.def.ghi', 'Authorization: [REDACTED]'],
    ['access token header', 'x-amz-access-token: Atza|zzz', 'x-amz-access-token: [REDACTED]'],
    [
      'SigV4 value',
      'sent AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260412/us-east-1/execute-api/aws4_request',
      'sent [REDACTED]',
    ],
    ['glued access key id', 'keyAKIAIOSFODNN7EXAMPLE', 'key[REDACTED]'],
    [
      'access key id followed by word characters',
      'AKIAIOSFODNN7EXAMPLE_and AKIAIOSFODNN7EXAMPLE1',
      '[REDACTED]_and [REDACTED]1',
    ],
    [
      'glued secret access key field',
      'my_aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'my_aws_secret_access_key=[REDACTED]',
    ],
    ['glued restricted data token', 'xAtz.sprdt|IQEBLjAsAhQexample', 'x[REDACTED]'],
    ['glued SigV4 value', 'hdrAWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260412', 'hdr[REDACTED]'],
    [
      'plain text',
      'Requested item not found in marketplace ATVPDKIKX0DER.',
      'Requested item not found in marketplace ATVPDKIKX0DER.',
    ],
  ])('%s', (_name, input, expected) => {
    expect(redactSpText(input)).toBe(expected);
  });

  it("redacts every string inside a value with a server's redactor", () => {
    expect(createAmazonRedactor(SP_REDACTION_PATTERNS).value({ a: ['Atza|x1', { b: 'ok' }], n: 3 })).toEqual({
      a: ['[REDACTED]', { b: 'ok' }],
      n: 3,
    });
  });
  it('scans long runs of white space in linear time (the test would time out otherwise)', () => {
    const secret = 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    for (const filler of [
      ' '.repeat(200_000),
      '\n'.repeat(200_000),
      `password=${' '.repeat(200_000)}`,
      `Bearer${' '.repeat(200_000)}`,
    ]) {
      const redacted = redactSpText(`${filler} then ${secret}`);
      expect(redacted.endsWith(' aws_secret_access_key = [REDACTED]')).toBe(true);
      expect(redacted).not.toContain('wJalrXUtnFEMI');
    }
  });
});
