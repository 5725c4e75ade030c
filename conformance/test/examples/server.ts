// A server for a made-up weather API: one tool, and an adapter that classifies its failures.
// Run: node --import tsx server.ts <API URL>
import { createEnvelopeServer } from '@mcp-envelope/core';
import type { EnvelopeAdapter } from '@mcp-envelope/core';
import { responseMetaFromHeaders } from '@mcp-envelope/core/adapter';

const api = process.argv[2] ?? 'http://127.0.0.1:8080';

// the adapter turns the API's failures into envelope fields; core does the rest
const adapter: EnvelopeAdapter = {
  id: 'weather',
  upstreams: ['weather-api'],
  errorKinds: ['upstream_http', 'upstream_client', 'rate_limited'],
  classify(failure) {
    if (failure.type !== 'upstream_http')
      return {
        error_kind: 'upstream_client',
        error_code: 'TOOL_EXECUTION_FAILED',
        retryable: true,
        summary: 'The weather API did not answer.',
        details: [],
        hints: [],
      };
    const busy = failure.status === 429;
    return {
      error_kind: busy ? 'rate_limited' : 'upstream_http',
      error_code: busy ? 'RATE_LIMITED' : `UPSTREAM_HTTP_${failure.status}`,
      retryable: busy || failure.status >= 500,
      summary: `The weather API answered HTTP ${failure.status}.`,
      details: [],
      hints: failure.status === 404 ? ['Check the spelling of the city.'] : [],
    };
  },
  // Retry-After, the rate-limit headers and Warning become the `_meta` an agent reads
  parseResponseMeta: (headers, now) =>
    responseMetaFromHeaders(headers, now, {
      limit: ['x-ratelimit-limit'],
      remaining: ['x-ratelimit-remaining'],
      reset: ['x-ratelimit-reset'],
    }),
};

const server = createEnvelopeServer({
  info: { name: 'weather-server', version: '1.0.0' },
  adapter,
  tools: [
    {
      name: 'get_forecast',
      description: "Tomorrow's forecast for a city.",
      inputSchema: { type: 'object', properties: { city: { type: 'string', minLength: 1 } }, required: ['city'] },
      // context.fetch records the answer's telemetry and throws what `classify` reads
      handler: async (args, context) =>
        (await context.fetch(`${api}/forecast/${encodeURIComponent(String(args['city']))}`)).json(),
    },
  ],
});
await server.serveStdio();
