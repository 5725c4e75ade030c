/**
 * Secret patterns specific to the Amazon Ads API, applied after core's default rules (which
 * already cover `Bearer` values, `Authorization` headers, LWA `Atza|`/`Atzr|` tokens, AWS
 * signatures in presigned report URLs, OAuth form fields, LWA client secrets).
 *
 * @packageDocumentation
 */
import { createRedactor } from '@mcp-envelope/core';
import type { Redactor } from '@mcp-envelope/core';

/**
 * The patterns the Ads adapter hands to core; every match is replaced whole by `[REDACTED]`:
 * - an LWA application client id (`amzn1.application-oa2-client.<hex>`), which Ads sends as
 *   `Amazon-Advertising-API-ClientId` and error messages echo: not a secret, but it identifies the
 *   application and no envelope needs it.
 * LWA client secrets and camelCase credential fields are among core's default rules.
 */
export const ADS_REDACTIONS: readonly RegExp[] = [/amzn1\.application-oa2-client\.[A-Za-z0-9]+/g];

/** Core's default rules plus {@link ADS_REDACTIONS}, compiled once. */
export const adsRedactor: Redactor = createRedactor(ADS_REDACTIONS);
