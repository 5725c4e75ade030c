/**
 * Response headers every Amazon API of this family may send, read the same way by each server.
 *
 * @packageDocumentation
 */

/**
 * The headers in which Amazon's endpoints (SP-API, the Ads API, Login with Amazon) may state a
 * wait in milliseconds instead of `Retry-After`; core reads them after `Retry-After` when they are
 * named in a server's `RateLimitHeaderNames.retryAfterMilliseconds`.
 */
export const AMAZON_RETRY_AFTER_MILLISECONDS_HEADERS: readonly string[] = Object.freeze(['x-amz-retry-after']);
