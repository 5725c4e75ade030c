// How the library API fails, in envelope terms: core's REST defaults, nothing of our own.
import type { EnvelopeAdapter } from '@mcp-envelope/core';
import { classifyClientFailure, classifyUpstreamStatus, responseMetaFromHeaders } from '@mcp-envelope/core/adapter';

export const libraryAdapter: EnvelopeAdapter = {
  id: 'library',
  upstreams: ['library-api'],
  errorKinds: ['upstream_http', 'upstream_client', 'auth_error', 'rate_limited'],
  classify: (failure) =>
    failure.type === 'upstream_http'
      ? {
          ...classifyUpstreamStatus(failure.status, { upstream: 'library-api' }),
          summary: `The library API answered HTTP ${failure.status}.`,
          details: [],
          hints: failure.status === 404 ? ['Check the ISBN, or find the book with search_books.'] : [],
        }
      : failure.type === 'credential'
        ? { error_kind: 'auth_error', error_code: 'AUTHENTICATION_ERROR', retryable: false, summary: 'No API key.', details: [], hints: [] }
        : classifyClientFailure(failure, {
            upstream: 'library-api',
            upstreamLabel: 'the library API',
            hints: { network: 'Retry in a moment.', timeout: 'Retry in a moment.', bodyCoercion: 'Send JSON.' },
          }),
  // Retry-After, the rate-limit headers and Warning become the `_meta` an agent reads
  parseResponseMeta: (headers, now) =>
    responseMetaFromHeaders(headers, now, {
      limit: ['x-ratelimit-limit'],
      remaining: ['x-ratelimit-remaining'],
      reset: ['x-ratelimit-reset'],
    }),
};
