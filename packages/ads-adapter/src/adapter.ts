/**
 * `adsAdapter`: the Amazon Ads API behind core's adapter seam. Data (hint tables, redactions,
 * kinds) plus the pure functions of this package: an adapter is data plus a few pure functions
 * behind one interface.
 *
 * @packageDocumentation
 */
import { deepFrozen, isRecord } from '@mcp-envelope/contract';
import { amazonRedactorOptions, isAmazonCredentialError } from '@mcp-envelope/amazon';
import type { AdapterHintTables, EnvelopeAdapter, InBandAnswer, InBandVerdict } from '@mcp-envelope/core';
import { inBandStatus, restInBandFailure } from '@mcp-envelope/core/adapter';

import { ADS_ERROR_KINDS, ADS_UPSTREAMS, classifyAdsFailure } from './classify.js';
import { ADS_CURATED_ENUMS, ADS_KEY_RENAMES, ADS_REGION_ALIASES } from './hint-tables.js';
import { ADS_REDACTIONS } from './redaction.js';
import { parseAdsResponseMeta } from './response-meta.js';

/** The domain-validator code of `set_active_profile` (a profile id the account does not have). */
export const ADS_PROFILE_NOT_FOUND_CODE = 'SCHEMA_PROFILE_NOT_FOUND' as const;

/**
 * The Ads hint tables core's argument pipeline reads: PascalCase -> camelCase key renames, region
 * aliases, curated enums, and an extra hint for enum mismatches.
 */
export const ADS_HINT_TABLES = deepFrozen({
  keyRenames: ADS_KEY_RENAMES,
  valueAliases: { region: ADS_REGION_ALIASES },
  curatedEnums: ADS_CURATED_ENUMS,
  extraHintsByCode: {
    SCHEMA_ENUM_MISMATCH: [
      'Ads API enum values are case-sensitive: v3 and unified v1 endpoints take UPPER_SNAKE values (ENABLED, SPONSORED_PRODUCTS), v2 endpoints lower case (enabled).',
    ],
  },
} as const satisfies AdapterHintTables);

/** The keys of an Ads error object (legacy `{code, details, requestId}`, reporting's `detail`, unified v1's `message`). */
const ADS_ERROR_KEYS: ReadonlySet<string> = new Set(['code', 'details', 'detail', 'message', 'requestId']);

/**
 * The Ads API's in-band rule: a 2xx body that is nothing but an Ads error object (a `code` with
 * `details`, `detail` or `message`), or one of the HTTP kit's common forms, is a failure of the
 * status its code means (`"404"` or `NOT_FOUND` 404, `INVALID_ARGUMENT` 400, `UNAUTHORIZED` 401,
 * any other code 500). A 207 Multi-Status answer is data: its failed items are the
 * `partial_results` warning. Implements CONTRACT.md "In-band failures from the upstream".
 *
 * @param answer - the 2xx answer.
 * @returns the verdict, or `undefined` when the body is data.
 */
export function adsInBandFailure(answer: InBandAnswer): InBandVerdict | undefined {
  const body = answer.body;
  if (answer.status === 207 || !isRecord(body)) return undefined;
  const code = body['code'];
  const said = ['details', 'detail', 'message'].some((key) => typeof body[key] === 'string');
  const errorObject =
    (typeof code === 'string' || typeof code === 'number') &&
    said &&
    Object.keys(body).every((key) => ADS_ERROR_KEYS.has(key));
  return errorObject ? { status: inBandStatus(body) } : restInBandFailure(body);
}

/**
 * The Amazon Ads API adapter for `createEnvelopeServer`: `id` `ads`, the kinds it can emit
 * (`upstream_http`, `upstream_client`, `auth_error`, `rate_limited`), its one upstream (`ads-api`),
 * {@link classifyAdsFailure},
 * {@link parseAdsResponseMeta}, `ADS_HINT_TABLES`, {@link ADS_REDACTIONS} and `adsInBandFailure` (which 2xx bodies are failures).
 */
export const adsAdapter: EnvelopeAdapter = Object.freeze({
  id: 'ads',
  errorKinds: ADS_ERROR_KINDS,
  upstreams: ADS_UPSTREAMS,
  classify: classifyAdsFailure,
  parseResponseMeta: (headers, now) => parseAdsResponseMeta(headers, now),
  hints: ADS_HINT_TABLES,
  redactions: amazonRedactorOptions(ADS_REDACTIONS),
  isCredentialError: isAmazonCredentialError,
  inBandFailure: adsInBandFailure,
} satisfies EnvelopeAdapter);
