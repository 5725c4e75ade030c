/**
 * Core in the peer benchmark: the same two tools on an envelope server over stdio, with an
 * adapter that classifies the upstream's 429 as `rate_limited`. Run (as JavaScript, see
 * peer-servers.ts) with the argument `limiter`, every call also takes a token from the
 * memory-store limiter (a plan no benchmark exhausts), the cost the limiter row measures.
 */
import { createEnvelopeServer } from '../../dist/index.js';
import type { EnvelopeAdapter } from '../../dist/index.js';
import { benchValue, ordersUrl, TOOL_SCHEMA } from './tool.js';

const adapter: EnvelopeAdapter = {
  id: 'bench',
  errorKinds: ['rate_limited', 'upstream_http'],
  upstreams: ['example-api'],
  classify: (failure) => {
    const status = failure.type === 'upstream_http' ? failure.status : 0;
    return {
      error_kind: status === 429 ? 'rate_limited' : 'upstream_http',
      error_code: status === 429 ? 'RATE_LIMITED' : `UPSTREAM_HTTP_${status}`,
      retryable: status === 429,
      summary: `The orders API answered HTTP ${status}.`,
      details: [],
      hints: status === 429 ? ['Wait before calling again.'] : [],
      upstream: 'example-api',
    };
  },
  parseResponseMeta: () => ({}),
};

const limiter = process.argv.includes('limiter');
// a plan no benchmark exhausts: every call takes a token and none waits
const limits = limiter ? { rateLimit: { ratePerSecond: 1e9, burst: 1e9 }, rateLimitIdentity: () => 'seller-1' } : {};

// the default logger (pino on stderr), as a user's server has it
await createEnvelopeServer({
  info: { name: 'peer-core', version: '0.0.0' },
  adapter,
  tools: [
    { name: 'bench', inputSchema: TOOL_SCHEMA, handler: benchValue, ...limits },
    {
      name: 'fetch_orders',
      inputSchema: TOOL_SCHEMA,
      handler: async (args, context) => (await context.fetch(ordersUrl(args))).json(),
      ...limits,
    },
  ],
  options: { env: {}, rateLimit: limiter },
}).serveStdio();
