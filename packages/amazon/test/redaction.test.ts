import { createRedactor } from '@mcp-envelope/core/adapter';
import { describe, expect, it } from 'vitest';

import { amazonRedactorOptions, createAmazonRedactor } from '../src/index.js';

describe('the Amazon rules of a server redactor', () => {
  const redactor = createAmazonRedactor([/acct-\d{6}/]);

  it('redacts LWA tokens, SigV4 parameters, x-amz credential headers and LWA client secrets', () => {
    expect(redactor.string('token Atza|IwEBIAbc-_.x9 and Atzr|IwEBIRefresh=')).toBe('token [REDACTED] and [REDACTED]');
    expect(redactor.string('https://s3.test/x?X-Amz-Credential=AKIA%2F20260302&X-Amz-Signature=abcdef&keep=1')).toBe(
      'https://s3.test/x?X-Amz-Credential=[REDACTED]&X-Amz-Signature=[REDACTED]&keep=1',
    );
    expect(redactor.string('x-amz-access-token: Atza|zzz')).toBe('x-amz-access-token: [REDACTED]');
    expect(redactor.string('{"x-amz-security-token":"FwoGZXIvYXdzE"}')).toBe('{"x-amz-security-token":"[REDACTED]"}');
    expect(redactor.string('key=amzn1.oa2-cs.v1.0123456789abcdef')).toBe('key=[REDACTED]');
    expect(redactor.string('path amzn1/oa2-cs/v1/0123456789abcdef end')).toBe('path [REDACTED] end');
    expect(redactor.string('account acct-123456 locked')).toBe('account [REDACTED] locked');
  });

  it('redacts them URL-encoded and glued to the text before them', () => {
    expect(redactor.string('token=Atza%7CIwEBIAbc-_.x9&other=Atzr%7cIwEBIRefresh')).toBe(
      'token=[REDACTED]&other=[REDACTED]',
    );
    expect(redactor.string('q?access_token%3DX1y2&password%3Dpw&x-amz-access-token%3dAtzq&a=1')).toBe(
      'q?access_token%3D[REDACTED]&password%3D[REDACTED]&x-amz-access-token%3d[REDACTED]&a=1',
    );
    expect(redactor.string('xAtza|IwEBIAglued1234 and _Atzr|IwEBIRglued')).toBe('x[REDACTED] and _[REDACTED]');
  });

  it('blanks the value of an x-amz credential header key whatever it looks like', () => {
    expect(redactor.value({ headers: { 'x-amz-access-token': 'opaque', 'x-amz-date': '20260302T000000Z' } })).toEqual({
      headers: { 'x-amz-access-token': '[REDACTED]', 'x-amz-date': '20260302T000000Z' },
    });
  });

  it('is stable when applied twice', () => {
    const once = redactor.string('Authorization: Bearer abc, Atza|x');
    expect(redactor.string(once)).toBe(once);
  });

  it('are not core defaults: a redactor without them keeps Amazon text', () => {
    const plain = createRedactor();
    expect(plain.string('token Atza|IwEBIAbc x-amz-security-token: zzz amzn1.oa2-cs.v1.0123456789abcdef')).toBe(
      'token Atza|IwEBIAbc x-amz-security-token: zzz amzn1.oa2-cs.v1.0123456789abcdef',
    );
    expect(createRedactor(amazonRedactorOptions()).string('token Atza|IwEBIAbc')).toBe('token [REDACTED]');
  });

  it('replaces a registered LWA secret also without its public prefix', () => {
    const own = createAmazonRedactor();
    const token = 'Atza|IwEBIUnitTestAccessToken0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH';
    own.registerSecret(token);
    own.registerSecret('amzn1.oa2-cs.v1.unitsecret00112233445566778899');
    expect(own.string(`t=${token.slice(5)};`)).toBe('t=[REDACTED];');
    expect(own.string('unitsecret00112233445566778899')).toBe('[REDACTED]');
  });
});

describe('the exported Amazon patterns', () => {
  it('keep no state between calls: testing one text twice gives the same answer', async () => {
    const { AMAZON_REDACTION_PATTERNS } = await import('../src/index.js');
    const texts = ['Atza|IwEBIAbc-x9', 'X-Amz-Signature=abcdef', 'amzn1.oa2-cs.v1.0123456789abcdef'];
    expect(
      AMAZON_REDACTION_PATTERNS.map((pattern, index) => [pattern.test(texts[index]!), pattern.test(texts[index]!)]),
    ).toEqual([
      [true, true],
      [true, true],
      [true, true],
    ]);
  });
});
