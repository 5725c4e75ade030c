/**
 * `spAdapter`: the SP-API implementation of core's `EnvelopeAdapter`. Everything SP-specific that
 * core needs, as data plus pure functions: the kinds it can emit, the classifier, the response
 * meta parser, the hint tables and the extra redaction patterns. Implements the SP appendix of
 * CONTRACT.md.
 *
 * @packageDocumentation
 */
import { amazonRedactorOptions, isAmazonCredentialError } from '@mcp-envelope/amazon';
import { isRecord } from '@mcp-envelope/contract';
import type { EnvelopeAdapter, InBandAnswer, InBandVerdict } from '@mcp-envelope/core';
import { restInBandFailure } from '@mcp-envelope/core/adapter';

import { classifySpFailure, SP_ERROR_KINDS, SP_UPSTREAMS } from './classify.js';
import { SP_HINT_TABLES } from './hint-tables.js';
import { SP_REDACTION_PATTERNS } from './redaction.js';
import type { SpRegion } from './regions.js';
import { parseSpResponseMeta } from './response-meta.js';

/** The adapter's server id in the migrations table. */
export const SP_SERVER_ID = 'sp';

/** SP-API answers `Unauthorized` and `InvalidSignature` with 403, not the 401 the common words mean. */
const SP_IN_BAND_CODES: Readonly<Record<string, number>> = Object.freeze({ Unauthorized: 403, InvalidSignature: 403 });

/**
 * SP-API's in-band rule: a 2xx body whose `errors` is a non-empty list and that holds nothing else
 * but `null` values is a failure, of the status its first known code means (`InvalidInput` 400,
 * `Unauthorized` and `InvalidSignature` 403, `NotFound` 404, `QuotaExceeded` 429, `InternalFailure`
 * 500, `ServiceUnavailable` 503; any other code 500). `errors` beside a `payload` (or any other
 * data) is data, sent as it is. Implements CONTRACT.md "In-band failures from the upstream".
 *
 * @param answer - the 2xx answer.
 * @returns the verdict, or `undefined` when the body is data.
 */
export function spInBandFailure(answer: InBandAnswer): InBandVerdict | undefined {
  const body = answer.body;
  if (!isRecord(body)) return undefined;
  const data = Object.entries(body).some(([key, value]) => key !== 'errors' && value !== null && value !== undefined);
  return data ? undefined : restInBandFailure(body, { overrides: SP_IN_BAND_CODES });
}

/** Options of {@link createSpAdapter}. */
export interface SpAdapterOptions {
  /**
   * The region whose endpoint the server calls right now (read at each classification), for
   * marketplace hints when requests go to a host that does not name its region.
   */
  readonly region?: () => SpRegion | undefined;
  /** The identity service's base URL: failures of requests under it name `upstream: "openbridge"`. */
  readonly identityServiceUrl?: string | undefined;
}

/**
 * Builds an SP adapter.
 *
 * @param options - see {@link SpAdapterOptions}.
 * @returns the adapter: `id: 'sp'`, `errorKinds` (`upstream_http`, `upstream_client`, `auth_error`,
 *   `rate_limited`), `upstreams` (`sp-api`, then its identity service `openbridge`), `classify`,
 *   `parseResponseMeta`, `hints`, `redactions` and `inBandFailure` ({@link spInBandFailure}).
 */
export function createSpAdapter(options: SpAdapterOptions = {}): EnvelopeAdapter {
  const adapter: EnvelopeAdapter = {
    id: SP_SERVER_ID,
    errorKinds: SP_ERROR_KINDS,
    upstreams: SP_UPSTREAMS,
    classify: (failure, context) =>
      classifySpFailure(failure, context, {
        region: options.region?.(),
        identityServiceUrl: options.identityServiceUrl,
      }),
    parseResponseMeta: (headers, now) => parseSpResponseMeta(headers, now),
    hints: SP_HINT_TABLES,
    redactions: amazonRedactorOptions(SP_REDACTION_PATTERNS),
    isCredentialError: isAmazonCredentialError,
    inBandFailure: spInBandFailure,
  };
  // frozen: every server made with this adapter reads it
  return Object.freeze(adapter);
}

/** The SP adapter for servers that call the region endpoints directly. */
export const spAdapter: EnvelopeAdapter = createSpAdapter();
