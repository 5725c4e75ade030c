/**
 * GitHub credentials that must never reach an envelope or a log line, beside core's defaults
 * (`Bearer` and `Authorization` values, OAuth token fields). GitHub prefixes its tokens so that
 * they can be recognized in text: that is what these patterns rely on. Implements the rule
 * "secrets never appear in any output" for what the GitHub API can echo back.
 *
 * @packageDocumentation
 */
import { deepFrozen } from '@mcp-envelope/contract';
import { createTextRedaction } from '@mcp-envelope/core/adapter';
import type { RedactorOptions } from '@mcp-envelope/core/adapter';

/**
 * Patterns whose whole match is replaced by `[REDACTED]`:
 * - prefixed tokens: `ghp_` (personal access token, classic), `gho_` (OAuth app), `ghu_`
 *   (GitHub App user-to-server), `ghs_` (GitHub App installation, server-to-server), `ghr_`
 *   (refresh token), each followed by at least 20 letters or digits;
 * - fine-grained personal access tokens, `github_pat_` followed by letters, digits and `_`;
 * - the older unprefixed installation tokens, `v1.` followed by 40 hex digits;
 * - the value after `token ` in an `Authorization: token ...` line written without the header name.
 */
export const GITHUB_REDACTION_PATTERNS: readonly RegExp[] = deepFrozen([
  /\bgh[pousr]_[A-Za-z0-9]{20,255}/,
  /\bgithub_pat_[A-Za-z0-9_]{20,255}/,
  /\bv1\.[0-9a-f]{40}\b/,
  /(?<=\btoken[ \t]{1,8})[A-Za-z0-9_.]{20,255}/,
]);

/**
 * The redactor options of the GitHub server: {@link GITHUB_REDACTION_PATTERNS}, and the token
 * prefixes as public prefixes, so a registered token echoed without its prefix is still replaced.
 */
export const GITHUB_REDACTOR_OPTIONS: RedactorOptions = deepFrozen({
  patterns: GITHUB_REDACTION_PATTERNS,
  publicPrefixes: [/^gh[pousr]_/, /^github_pat_/, /^v1\./],
});

/**
 * Redacts one string with core's defaults and {@link GITHUB_REDACTION_PATTERNS}: patterns only,
 * no registry of secret values (each server's own redactor holds its token), so the classifier
 * can share it.
 *
 * @param text - any text (an upstream message, a URL, a log line).
 * @returns the text with every token replaced by `[REDACTED]`.
 */
export const redactGithubText: (text: string) => string = createTextRedaction(GITHUB_REDACTOR_OPTIONS);
