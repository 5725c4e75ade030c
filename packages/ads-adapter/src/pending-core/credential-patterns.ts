/**
 * PENDING CORE: generic, not Ads-specific. Secret shapes of Login with Amazon that both Amazon
 * adapters must redact, beyond core's default rules (which cover `Bearer` values, `Atza|`/`Atzr|`
 * tokens and the snake_case OAuth fields only):
 * - LWA client secrets (`amzn1.oa2-cs.v1.<hex>`), echoed by SDK configs and error messages;
 * - the camelCase credential fields client configs write (`refreshToken`, `accessToken`,
 *   `clientSecret`), as `name: value` pairs.
 * These belong in core's `DEFAULT_RULES` (src/redact.ts). They live here until the lead moves
 * them; the SP adapter carries its own copy of the client-secret pattern today.
 *
 * @packageDocumentation
 */

/** Every match is replaced whole by `[REDACTED]`. */
export const LWA_CREDENTIAL_PATTERNS: readonly RegExp[] = [
  /\bamzn1\.oa2-cs\.v\d+\.[A-Za-z0-9]+/g,
  /\b(?:refreshToken|accessToken|clientSecret)["']?\s*[:=]\s*["']?[^"'&\s,}]+/g,
];
