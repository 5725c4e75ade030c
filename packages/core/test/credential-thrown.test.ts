import { describe, expect, it } from 'vitest';

import { createEnvelopeServer } from '../src/index.js';
import { connectInMemory } from './fixtures/connect.js';
import { captureLog } from './fixtures/log-capture.js';
import { TestCredentialError, testAdapter } from './fixtures/test-adapter.js';

describe('a credential error thrown by a handler', () => {
  it('reaches the adapter as a credential failure when the adapter recognizes it', async () => {
    const server = createEnvelopeServer({
      info: { name: 'credential', version: '0.0.1' },
      adapter: testAdapter,
      tools: [
        {
          name: 'needs_token',
          inputSchema: { type: 'object' },
          handler: () => {
            throw new TestCredentialError('the test token endpoint refused the refresh');
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
      summary: 'No access token: the test token endpoint refused the refresh.',
      details: [],
      hints: ['Set the test credentials.'],
      examples: [],
      error_code: 'AUTHENTICATION_ERROR',
      retryable: false,
      _envelope_version: 1,
    });
    await connected.close();
  });

  it('is an internal_error when the adapter does not recognize it', async () => {
    const log = captureLog();
    const withoutRecognizer = { ...testAdapter, isCredentialError: () => false };
    const server = createEnvelopeServer({
      info: { name: 'credential', version: '0.0.1' },
      adapter: withoutRecognizer,
      tools: [
        {
          name: 'needs_token',
          inputSchema: { type: 'object' },
          handler: () => {
            throw new TestCredentialError('refused');
          },
        },
      ],
      options: { env: {}, migrations: [], logger: log.logger },
    });
    const connected = await connectInMemory(server);
    const result = await connected.client.callTool({ name: 'needs_token', arguments: {} });
    expect((result.structuredContent as Record<string, unknown>)['error_kind']).toBe('internal_error');
    await connected.close();
  });
});
