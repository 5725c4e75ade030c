/**
 * Secret patterns specific to the Amazon Ads API, applied after core's default rules (`Bearer`
 * values, `Authorization` headers, OAuth form fields) and the Amazon rules of
 * `@mcp-envelope/amazon` (LWA `Atza|`/`Atzr|` tokens, AWS signatures in presigned report URLs,
 * LWA client secrets).
 *
 * @packageDocumentation
 */
import { deepFrozen } from '@mcp-envelope/contract';
import { amazonRedactorOptions } from '@mcp-envelope/amazon';
import { createTextRedaction } from '@mcp-envelope/core/adapter';

/**
 * The patterns the Ads adapter hands to core; every match is replaced whole by `[REDACTED]`:
 * - an LWA application client id (`amzn1.application-oa2-client.<hex>`), which Ads sends as
 *   `Amazon-Advertising-API-ClientId` and error messages echo: not a secret, but it identifies the
 *   application and no envelope needs it.
 * LWA client secrets are among the Amazon rules, camelCase credential fields among core's.
 * Frozen, list and pattern: every later server's redactor is built from them.
 */
export const ADS_REDACTIONS: readonly RegExp[] = deepFrozen([/amzn1\.application-oa2-client\.[A-Za-z0-9]+/]);

/**
 * Redacts one string with core's defaults, the Amazon rules and {@link ADS_REDACTIONS}: patterns
 * only, no registry of secret values (each server's own redactor, see `createAdsServer`, holds
 * those), so the classifiers can share it.
 *
 * @param text - upstream text.
 * @returns the text with every secret replaced by `[REDACTED]`.
 */
export const redactAdsText: (text: string) => string = createTextRedaction(amazonRedactorOptions(ADS_REDACTIONS));
