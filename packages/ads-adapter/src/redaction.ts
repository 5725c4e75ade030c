/**
 * Secret patterns specific to the Amazon Ads API, applied after core's default rules (`Bearer`
 * values, `Authorization` headers, OAuth form fields) and the Amazon rules of
 * `@mcp-envelope/amazon` (LWA `Atza|`/`Atzr|` tokens, AWS signatures in presigned report URLs,
 * LWA client secrets).
 *
 * @packageDocumentation
 */
import { createAmazonRedactor } from '@mcp-envelope/amazon';
import type { Redactor } from '@mcp-envelope/core';

/**
 * The patterns the Ads adapter hands to core; every match is replaced whole by `[REDACTED]`:
 * - an LWA application client id (`amzn1.application-oa2-client.<hex>`), which Ads sends as
 *   `Amazon-Advertising-API-ClientId` and error messages echo: not a secret, but it identifies the
 *   application and no envelope needs it.
 * LWA client secrets are among the Amazon rules, camelCase credential fields among core's.
 */
export const ADS_REDACTIONS: readonly RegExp[] = [/amzn1\.application-oa2-client\.[A-Za-z0-9]+/];

/**
 * The patterns-only redactor the Ads classifier cleans upstream text with, compiled once. No
 * secret value is ever registered with it: each server's own redactor (see `createAdsServer`)
 * holds those.
 */
export const adsRedactor: Redactor = createAmazonRedactor(ADS_REDACTIONS);
