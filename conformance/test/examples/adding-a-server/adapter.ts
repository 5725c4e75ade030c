// How the library API fails, in envelope terms: core's REST defaults and one hint of our own.
import type { EnvelopeAdapter } from '@mcp-envelope/core';
import { classifyRestFailure, restResponseMeta } from '@mcp-envelope/core/adapter';

export const libraryAdapter: EnvelopeAdapter = {
  id: 'library',
  upstreams: ['library-api'],
  errorKinds: ['upstream_http', 'upstream_client', 'auth_error', 'rate_limited'],
  // status table, rate limits (429, or 403 with Retry-After), problem+json bodies as details
  classify: (failure, context) =>
    classifyRestFailure(failure, context, {
      upstream: 'library-api',
      apiName: 'library API',
      hints: { notFound: 'Check the ISBN, or find the book with search_books.' },
    }),
  // Retry-After, every rate-limit header dialect and Warning become the `_meta` an agent reads
  parseResponseMeta: restResponseMeta,
};
