/**
 * SP-specific secrets that must never reach an envelope or a log line, beside core's defaults
 * (`Bearer` values, `Authorization` values, OAuth `access_token`/`refresh_token`/`client_secret`
 * fields in snake and camel case) and the Amazon rules of `@mcp-envelope/amazon` (`Atza|`/`Atzr|`
 * tokens, `x-amz-access-token`/`x-amz-security-token` values, SigV4 `Signature=`/`Credential=`,
 * LWA client secrets). Implements the rule "secrets never appear in any
 * output" for what SP-API and LWA can echo back.
 *
 * @packageDocumentation
 */
import { deepFrozen } from '@mcp-envelope/contract';
import { amazonRedactorOptions } from '@mcp-envelope/amazon';
import { createTextRedaction } from '@mcp-envelope/core/adapter';

/**
 * Patterns whose whole match is replaced by `[REDACTED]` (handed to core as the adapter's
 * `redactions`):
 * - Restricted Data Tokens (`Atz.sprdt|...`) and LWA tokens written URL-encoded (`Atza%7C...`);
 * - AWS access key ids (`AKIA...`, `ASIA...`), and the values of secret-key and session-token
 *   fields (`aws_secret_access_key`, `SecretAccessKey`, `aws_session_token`, `SessionToken`);
 * - a SigV4 `Authorization` value's `SignedHeaders=... Signature=...` tail when written without
 *   the header name.
 */
export const SP_REDACTION_PATTERNS: readonly RegExp[] = deepFrozen([
  /Atz\.[a-z]+\|[^\s"'&,;<>}\]]+/,
  /Atz[a-z.]*%7[cC][^\s"'&,;<>}\]]+/,
  /(?:AKIA|ASIA)[A-Z0-9]{16}/,
  // bounded white space: an unbounded \s* in a lookbehind rescans a whole run of white space
  // at every position of it (quadratic: 100 kB of spaces took 20 s)
  /(?<=(?:aws_secret_access_key|secretAccessKey|SecretAccessKey|aws_session_token|sessionToken|SessionToken)["']?[ \t]{0,8}[:=][ \t]{0,8}["']?)[A-Za-z0-9/+=]{16,}/,
  /AWS4-HMAC-SHA256\s+[^"'\r\n]+/,
]);

/**
 * Redacts one string with core's defaults, the Amazon rules and {@link SP_REDACTION_PATTERNS}:
 * patterns only, no registry of secret values (each server's own redactor, see `createSpServer`,
 * holds those), so the classifiers can share it.
 *
 * @param text - any text (an upstream message, a URL, a log line).
 * @returns the text with every secret replaced by `[REDACTED]`.
 */
export const redactSpText: (text: string) => string = createTextRedaction(amazonRedactorOptions(SP_REDACTION_PATTERNS));
