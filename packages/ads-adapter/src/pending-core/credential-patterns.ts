/**
 * PENDING CORE: generic, not Ads-specific. Core's default redaction rules cover the OAuth field
 * names in snake_case (`access_token`, `refresh_token`, `client_secret`) only; client configs and
 * SDK error echoes of both Amazon APIs also write them in camelCase. This pattern belongs in
 * core's `DEFAULT_RULES` (src/redact.ts); it lives here until the lead moves it, and the SP
 * adapter must not write its own copy.
 *
 * @packageDocumentation
 */

/**
 * `"refreshToken": "..."`, `clientSecret=...`, `accessToken: ...` (the whole `name: value` pair
 * is replaced, since core's adapter patterns replace whole matches).
 */
export const CAMEL_CASE_CREDENTIAL_FIELDS: readonly RegExp[] = [/\b(?:refreshToken|accessToken|clientSecret)["']?\s*[:=]\s*["']?[^"'&\s,}]+/g];
