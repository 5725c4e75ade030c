import { describe, expect, it } from 'vitest';

import { LwaError, createEnvelopeServer } from '../../src/index.js';
import { connectInMemory } from '../fixtures/connect.js';
import { testAdapter } from '../fixtures/test-adapter.js';

describe('an LwaError thrown by a handler', () => {
  it('reaches the adapter as an lwa failure and answers auth_error naming the missing variables', async () => {
    const server = createEnvelopeServer({
      info: { name: 'lwa', version: '0.0.1' },
      adapter: testAdapter,
      tools: [
        {
          name: 'needs_token',
          inputSchema: { type: 'object' },
          handler: () => {
            throw new LwaError('missing_credentials', 'LWA credentials are not configured', { missing: ['LWA_CLIENT_SECRET', 'LWA_REFRESH_TOKEN'] });
          },
        },
      ],
      options: { env: {}, migrations: [] },
    });
    const connected = await connectInMemory(server);
    const result = await connected.client.callTool({ name: 'needs_token', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      error_kind: 'auth_error',
      tool: 'needs_token',
      summary: 'No LWA credentials: LWA_CLIENT_SECRET, LWA_REFRESH_TOKEN are not set.',
      details: [
        { path: 'LWA_CLIENT_SECRET', issue: 'LWA_CLIENT_SECRET is not set', received_type: 'undefined' },
        { path: 'LWA_REFRESH_TOKEN', issue: 'LWA_REFRESH_TOKEN is not set', received_type: 'undefined' },
      ],
      hints: ["Set LWA_CLIENT_SECRET, LWA_REFRESH_TOKEN in the server's environment and restart it."],
      examples: [],
      error_code: 'AUTHENTICATION_ERROR',
      retryable: false,
      _envelope_version: 1,
    });
    await connected.close();
  });
});
