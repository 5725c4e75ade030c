/**
 * The Amazon credentials every Amazon-facing server must keep out of its envelopes and log lines,
 * as options for core's redactor: Login with Amazon tokens and client secrets, the `x-amz-*`
 * credential headers, and AWS SigV4 signatures in presigned URLs and headers.
 *
 * @packageDocumentation
 */
import { deepFrozen } from '@mcp-envelope/contract';
import { createRedactor } from '@mcp-envelope/core/adapter';
import type { Redactor, RedactorOptions } from '@mcp-envelope/core';

/**
 * Patterns replaced wherever they appear:
 * - Login with Amazon access and refresh tokens `Atza|...` and `Atzr|...`, also URL-encoded
 *   (`Atza%7C...`);
 * - AWS SigV4 query and header parameters (`X-Amz-Signature=`, `X-Amz-Credential=`,
 *   `X-Amz-Security-Token=`, `Signature=`, `Credential=`): the name kept, the value replaced;
 * - LWA client secrets `amzn1.oa2-cs.v<n>.<secret>` (dots also written as slashes, as a field
 *   path rewrite spells them).
 * Without the `g` flag, so that a caller's `test` keeps no `lastIndex` between calls (the
 * redactor adds the flag to its own copies). Frozen, list and patterns: every later server's
 * redactor is built from them.
 */
export const AMAZON_REDACTION_PATTERNS: readonly RegExp[] = deepFrozen([
  /Atz[ar](?:\||%7C)[^\s"'&,;<>}\]]+/i,
  /(?<keep>(?:X-Amz-)?(?:Signature|Credential|Security-Token)(?:=|%3D))[^&\s"',;]+/i,
  /amzn1[./]oa2-cs[./]v\d+[./][A-Za-z0-9]+/,
]);

/**
 * A cheap test each of {@link AMAZON_REDACTION_PATTERNS} needs to match: a string without any of
 * these words is not scanned by them.
 */
export const AMAZON_REDACTION_TRIGGER: RegExp = Object.freeze(
  /atz[ar](?:\||%7c)|signature(?:=|%3d)|credential(?:=|%3d)|security-token(?:=|%3d)|oa2-cs/i,
);

/** Request headers whose values are Amazon credentials (LWA access tokens, STS session tokens). */
export const AMAZON_SECRET_HEADERS: readonly string[] = Object.freeze(['x-amz-access-token', 'x-amz-security-token']);

/**
 * The public prefixes of LWA credentials: a registered secret is also replaced without them,
 * as upstreams sometimes echo only the rest. Frozen, as {@link AMAZON_REDACTION_PATTERNS}.
 */
export const AMAZON_PUBLIC_PREFIXES: readonly RegExp[] = deepFrozen([/^Atz[ar]\|/, /^amzn1\.oa2-cs\.v\d+\./]);

/**
 * The redactor options of an Amazon-facing server: the Amazon rules above plus the server's own
 * patterns.
 *
 * @param extraPatterns - the server's own patterns (each match replaced whole).
 * @returns options for core's `createRedactor` (or an adapter's `redactions`).
 */
export function amazonRedactorOptions(extraPatterns: readonly RegExp[] = []): RedactorOptions {
  // frozen: an adapter keeps these options, and every server made with it builds its redactor from them
  return Object.freeze({
    triggeredPatterns: Object.freeze([
      Object.freeze({ trigger: AMAZON_REDACTION_TRIGGER, patterns: AMAZON_REDACTION_PATTERNS }),
    ]),
    patterns: Object.freeze([...extraPatterns]),
    secretHeaders: AMAZON_SECRET_HEADERS,
    publicPrefixes: AMAZON_PUBLIC_PREFIXES,
  });
}

/**
 * A new redactor with core's defaults, the Amazon rules and the server's patterns, knowing no
 * secret value yet: each server creates its own and hands it to its LWA clients.
 *
 * @param extraPatterns - the server's own patterns.
 * @returns the redactor.
 */
export function createAmazonRedactor(extraPatterns: readonly RegExp[] = []): Redactor {
  return createRedactor(amazonRedactorOptions(extraPatterns));
}
