// A server for a made-up library-catalog API: search the catalog, look a book up, borrow it.
// Run: node --import tsx server.ts <API URL>
import { createEnvelopeServer, readSuccessBody } from '@mcp-envelope/core';

import { libraryAdapter } from './adapter.js';

const api = process.argv[2] ?? 'http://127.0.0.1:8080';
// an example lets agents (and the conformance probe) build a valid call
const isbn = { type: 'string', pattern: '^[0-9]{9}[0-9X]$|^97[89][0-9]{10}$', examples: ['9780141439518'] };

const server = createEnvelopeServer({
  info: { name: 'library-server', version: '1.0.0' },
  adapter: libraryAdapter,
  tools: [
    {
      name: 'search_books',
      description: 'Books whose title or author contains the query, 20 per page.',
      annotations: { readOnlyHint: true },
      inputSchema: {
        type: 'object',
        properties: { query: { type: 'string', minLength: 2 }, page: { type: 'integer', minimum: 1 } },
        required: ['query'],
      },
      // context.fetch records the answer's telemetry and throws what the adapter classifies
      handler: async (args, context) => {
        // the arguments passed the schema above before the handler runs
        const { query, page = 1 } = args as { query: string; page?: number };
        const search = new URLSearchParams({ q: query, page: String(page) });
        return readSuccessBody(await context.fetch(`${api}/books?${search.toString()}`, { timeoutMs: 10_000 }));
      },
    },
    {
      name: 'get_book',
      description: 'One book by its ISBN: title, author, copies on the shelf.',
      annotations: { readOnlyHint: true },
      inputSchema: { type: 'object', properties: { isbn }, required: ['isbn'] },
      handler: async (args, context) =>
        readSuccessBody(await context.fetch(`${api}/books/${String(args['isbn'])}`, { timeoutMs: 10_000 })),
    },
    {
      name: 'borrow_book',
      description: 'Borrows a copy of a book for a member; answers the loan and its due date.',
      inputSchema: {
        type: 'object',
        properties: { isbn, member_id: { type: 'string', pattern: '^M[0-9]{6}$', examples: ['M000001'] } },
        required: ['isbn', 'member_id'],
      },
      handler: async (args, context) =>
        readSuccessBody(
          await context.fetch(`${api}/loans`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ isbn: args['isbn'], member_id: args['member_id'] }),
            timeoutMs: 10_000,
          }),
        ),
    },
  ],
});
await server.serveStdio();
