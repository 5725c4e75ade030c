/**
 * Secret patterns specific to the Amazon Ads API, applied after core's default rules (which
 * already cover `Bearer` values, `Authorization` headers, LWA `Atza|`/`Atzr|` tokens, AWS
 * signatures in presigned report URLs and OAuth form fields). Implements issue 5 item 4.
 *
 * @packageDocumentation
 */
import { createRedactor } from '@mcp-envelope/core';
import type { Redactor } from '@mcp-envelope/core';

import { CAMEL_CASE_CREDENTIAL_FIELDS } from './pending-core/credential-fields.js';

/**
 * Ads-specific patterns; every match is replaced whole by `[REDACTED]`:
 * - LWA client secrets (`amzn1.oa2-cs.v1.<hex>`), which Ads SDK configs and error echoes carry;
 * - the value of an `Amazon-Advertising-API-ClientId` / `Amazon-Ads-ClientId` header echoed in a
 *   message (not a secret, but it identifies the application and is never needed in an envelope);
 * - camelCase credential fields (`refreshToken`, `clientSecret`, `accessToken`) as Ads client
 *   configs write them (see `pending-core/credential-fields.ts`).
 */
export const ADS_REDACTIONS: readonly RegExp[] = [
  /\bamzn1\.oa2-cs\.v1\.[A-Za-z0-9]+/g,
  /\bamzn1\.application-oa2-client\.[A-Za-z0-9]+/g,
  ...CAMEL_CASE_CREDENTIAL_FIELDS,
];

/** Core's default rules plus {@link ADS_REDACTIONS}, compiled once. */
export const adsRedactor: Redactor = createRedactor(ADS_REDACTIONS);
