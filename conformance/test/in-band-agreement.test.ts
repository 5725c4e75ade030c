/**
 * Server and client helpers agree on every 2xx body: one table of bodies, served by the replay
 * upstream on 127.0.0.1 to the SP, Ads and GitHub servers as real processes over stdio, each
 * called through the MCP SDK v1 and v2 clients with `callWithEnvelope` and `callOrThrow`. For
 * each row the server's `isError`, the pair `callWithEnvelope` returns and what `callOrThrow`
 * throws say the same thing, and the row's kind and code are what the server's adapter decided.
 */
import { startAmazonReplay } from '@mcp-envelope/amazon/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import {
  ENVELOPE_EXTENSION_ID,
  ToolEnvelopeError,
  callOrThrow,
  callWithEnvelope,
  validateEnvelope,
} from '@mcp-envelope/contract';
import type { ToolCallingClient } from '@mcp-envelope/contract';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { serverBinPath } from '../src/gate/reference-servers.js';
import { binArgs, gated, mainEnv, prepareGatedModels } from './helpers/gate-servers.js';

type ServerId = 'sp' | 'ads' | 'github';

/** What a row must give on one server: data, or a failure of this kind and code. */
type Outcome = 'data' | readonly [kind: string, code: string];

/** One 2xx body and its outcome on each server. */
interface Row {
  readonly about: string;
  readonly body: unknown;
  readonly outcome: Readonly<Record<ServerId, Outcome>>;
}

const NOT_FOUND = { code: 'NotFound', message: 'Widget w-1 does not exist.' };
const ENVELOPE_SHAPED = {
  error_kind: 'upstream_http',
  tool: 'elsewhere',
  summary: 'An envelope some other API stored as data.',
  details: [],
  hints: [],
  examples: [],
  error_code: 'UPSTREAM_HTTP_404',
  retryable: false,
  _envelope_version: 2,
};

const HTTP_404 = ['upstream_http', 'UPSTREAM_HTTP_404'] as const;
const LIMITED = ['rate_limited', 'RATE_LIMITED'] as const;
const ALL_DATA = { sp: 'data', ads: 'data', github: 'data' } as const;

const ROWS: readonly Row[] = [
  {
    about: '{ error: {...} } alone (the kit form; SP reports failures only as an errors list)',
    body: { error: NOT_FOUND },
    outcome: { sp: 'data', ads: HTTP_404, github: HTTP_404 },
  },
  {
    about: '{ errors: [...] } without data',
    body: { errors: [NOT_FOUND] },
    outcome: { sp: HTTP_404, ads: HTTP_404, github: HTTP_404 },
  },
  {
    about: '{ errors: [QuotaExceeded], data: null }',
    body: { errors: [{ code: 'QuotaExceeded', message: 'You exceeded your quota.' }], data: null },
    outcome: { sp: LIMITED, ads: LIMITED, github: LIMITED },
  },
  {
    about: '{ errors: [Unauthorized] } (SP answers Unauthorized with 403)',
    body: { errors: [{ code: 'Unauthorized', message: 'Access to requested resource is denied.' }] },
    outcome: {
      sp: ['auth_error', 'UPSTREAM_HTTP_403'],
      ads: ['auth_error', 'UPSTREAM_HTTP_401'],
      github: ['auth_error', 'UPSTREAM_HTTP_401'],
    },
  },
  { about: '{ errors: [] } (empty)', body: { errors: [] }, outcome: ALL_DATA },
  { about: '{ error: null, items: [] }', body: { error: null, items: [] }, outcome: ALL_DATA },
  {
    about: '{ payload, errors } (SP data with errors beside; the kit reads only data as data)',
    body: { payload: { id: 'w-1' }, errors: [{ code: 'InvalidInput', message: 'Color is deprecated.' }] },
    outcome: {
      sp: 'data',
      ads: ['upstream_http', 'UPSTREAM_HTTP_400'],
      github: ['upstream_http', 'UPSTREAM_HTTP_400'],
    },
  },
  {
    about: 'an Ads error object { code, details }',
    body: { code: 'NOT_FOUND', details: 'Campaign 7 was not found.' },
    outcome: { sp: 'data', ads: HTTP_404, github: 'data' },
  },
  { about: 'an envelope-shaped data object', body: ENVELOPE_SHAPED, outcome: ALL_DATA },
  { about: '{}', body: {}, outcome: ALL_DATA },
  { about: '[]', body: [], outcome: ALL_DATA },
  { about: 'plain text', body: 'all good', outcome: ALL_DATA },
];

/** The tool each server calls: one that sends a request upstream with no arguments. */
const TOOLS: Readonly<Record<ServerId, string>> = {
  sp: 'sellers_getMarketplaceParticipations',
  ads: 'list_sb_campaigns',
  github: 'repos_get',
};
const ARGS: Readonly<Record<ServerId, Record<string, unknown>>> = {
  sp: {},
  ads: {},
  github: { owner: 'octo-org', repo: 'hello-world' },
};

let replay: UpstreamReplay;
let removeModels: () => void;
let folders: Readonly<Record<string, string>>;

beforeAll(async () => {
  replay = await startAmazonReplay();
  const models = prepareGatedModels();
  removeModels = models.remove;
  folders = models.folders;
});

afterAll(async () => {
  await replay.close();
  removeModels();
});

/** The command that starts one server on the replay. */
function launch(id: ServerId): { command: string; args: string[]; env: Record<string, string> } {
  const args =
    id === 'github'
      ? [serverBinPath(gated('github')), '--upstream', replay.url]
      : binArgs(id, replay.url, folders[id] ?? '');
  return {
    command: process.execPath,
    args,
    env: { PATH: process.env['PATH'] ?? '', ...mainEnv(id, replay), MCP_RATE_LIMIT: 'off' },
  };
}

/** Serves `body` as the upstream's next answers (any path), as JSON or, for a string, as text. */
function serve(body: unknown): void {
  replay.reset();
  replay.respond(
    typeof body === 'string'
      ? { status: 200, headers: { 'content-type': 'text/plain' }, body }
      : { status: 200, headers: { 'content-type': 'application/json' }, body },
  );
}

/** The parts of a raw result the table reads. */
interface RawResult {
  readonly isError?: boolean;
  readonly structuredContent?: Record<string, unknown>;
  readonly content?: readonly { readonly text?: string }[];
  readonly _meta?: Record<string, unknown>;
}

/** The outcome of one row as the raw result, `callWithEnvelope` and `callOrThrow` each tell it. */
async function outcomes(client: ToolCallingClient, id: ServerId) {
  const tool = TOOLS[id];
  const raw = (await client.callTool({
    name: tool,
    arguments: ARGS[id],
    _meta: { [ENVELOPE_EXTENSION_ID]: { contract_versions: [2] } },
  })) as RawResult;
  const [value, envelope] = await callWithEnvelope(client, tool, ARGS[id], { contractVersions: [2] });
  const thrown = await callOrThrow(client, tool, ARGS[id], { contractVersions: [2] }).then(
    (returned) => ({ returned }),
    (error: unknown) => ({ error }),
  );
  return { raw, value, envelope, thrown };
}

const CLIENTS = {
  'SDK v1': async (server: ReturnType<typeof launch>) => {
    const client = new Client({ name: 'in-band-agreement', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ ...server, stderr: 'ignore' }));
    return client;
  },
  'SDK v2': async (server: ReturnType<typeof launch>) => {
    const client = new ClientV2({ name: 'in-band-agreement', version: '1.0.0' });
    await client.connect(new StdioTransportV2({ ...server, stderr: 'ignore' }));
    return client;
  },
} as const;

describe.each(['sp', 'ads', 'github'] as const)('%s over stdio', (id) => {
  describe.each(['SDK v1', 'SDK v2'] as const)('%s client', (sdk) => {
    let client: Client | ClientV2;
    beforeAll(async () => {
      client = await CLIENTS[sdk](launch(id));
    }, 60_000);
    afterAll(async () => {
      await client.close();
    });

    it.each(ROWS)('$about', async (row) => {
      serve(row.body);
      const { raw, value, envelope, thrown } = await outcomes(client, id);
      const expected = row.outcome[id];
      // every result states the contract, and the client library passed the statement on
      expect(raw._meta?.[ENVELOPE_EXTENSION_ID]).toEqual({ contract_version: 2 });
      if (expected === 'data') {
        expect([raw.isError ?? false, envelope, 'returned' in thrown]).toEqual([false, null, true]);
        const sent = raw.structuredContent ?? raw.content?.[0]?.text;
        expect(value).toEqual(sent);
        expect('returned' in thrown ? thrown.returned : undefined).toEqual(sent);
        return;
      }
      expect([raw.isError, raw.structuredContent?.['error_kind'], raw.structuredContent?.['error_code']]).toEqual([
        true,
        ...expected,
      ]);
      expect(validateEnvelope(raw.structuredContent)).toEqual({ valid: true, version: 2 });
      expect((raw.structuredContent?.['details'] as Record<string, unknown>[])[0]).toMatchObject({
        http_status: 200,
        in_band: true,
      });
      expect([value, envelope?.error_kind, envelope?.error_code]).toEqual([null, ...expected]);
      const error = 'error' in thrown ? thrown.error : undefined;
      expect(ToolEnvelopeError.isInstance(error) ? [error.error_kind, error.error_code] : error).toEqual([...expected]);
    });
  });
});
