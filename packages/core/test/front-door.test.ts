/**
 * Core's front door: `@mcp-envelope/core` exports what a server author writes a server with and
 * nothing for tests, `@mcp-envelope/core/adapter` what an adapter author builds a rich adapter
 * with, and the package npm would publish holds no test infrastructure (that is the
 * `@mcp-envelope/testing` package).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

import * as testing from '@mcp-envelope/testing';
import { describe, expect, it } from 'vitest';

import * as adapterEntry from '../src/adapter-entry.js';
import * as core from '../src/index.js';
import * as openapiEntry from '../src/openapi-entry.js';

const PACKAGE_FOLDER = new URL('..', import.meta.url);

const SERVER_AUTHOR_EXPORTS = [
  'CODE_MODE_DEFAULTS',
  'CONCURRENCY_DEFAULTS',
  'ENVELOPE_CONTRACT_TOOL_NAME',
  'EXECUTE_CODE_TOOL_NAME',
  'EnvelopeError',
  'GET_TOOL_SCHEMA_TOOL_NAME',
  'PACKAGE_VERSION',
  'RATE_LIMIT_DEFAULTS',
  'SEARCH_TOOLS_TOOL_NAME',
  'UpstreamClientError',
  'UpstreamHttpError',
  'addStreamableHttpOptions',
  'createEnvelopeLogger',
  'createEnvelopeServer',
  'createMemoryRateLimitStore',
  'inputRequiredResult',
  'partialSuccess',
  'readSuccessBody',
  'readToolHistory',
  'serveFromCommandLine',
  'shutdownOnSignals',
  'streamableHttpOptionsFrom',
  'upstreamFromCommandLine',
  'toolError',
  'toolResult',
  'upstreamFetch',
  'wrapMcpServer',
];

const ADAPTER_AUTHOR_EXPORTS = [
  'ConcurrencySettingsError',
  'MAX_SESSION_STATES',
  'RateLimitSettingsError',
  'SessionStates',
  'capText',
  'classifyClientFailure',
  'classifyUpstreamStatus',
  'compileTool',
  'createPipelineCaches',
  'createRedactor',
  'createTextRedaction',
  'displayLocation',
  'endpointUrlProblem',
  'headerRecord',
  'headerValue',
  'isLoopbackUrl',
  'jsonTypeOf',
  'locationUrl',
  'lowerCaseHeaders',
  'parseUpstreamBody',
  'requestPath',
  'responseMetaFromHeaders',
  'retryAfterSeconds',
  'MAX_RETRY_AFTER_SECONDS',
  // the HTTP kit
  'DEFAULT_REST_HINTS',
  'EPOCH_RESET_THRESHOLD',
  'MAX_REST_ERROR_DETAILS',
  'classifyRestFailure',
  'classifyRestStatus',
  'inBandError',
  'inBandStatus',
  'nextPageLink',
  'parseLinkHeader',
  'parseProblemDetails',
  'pointerPath',
  'rateLimitSignal',
  'readRateLimit',
  'restErrorDetails',
  'restInBandFailure',
  'restResponseMeta',
];

/** What `npm pack` would put in core's tarball: each file's path and the text of the built ones. */
async function packedFiles(): Promise<{ path: string; text: string }[]> {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: PACKAGE_FOLDER,
  });
  const [pack] = JSON.parse(stdout) as [{ files: { path: string }[] }];
  return pack.files.map(({ path }) => ({
    path,
    text: /\.(js|d\.ts)$/.test(path) ? readFileSync(new URL(path, PACKAGE_FOLDER), 'utf8') : '',
  }));
}

describe("core's entry points", () => {
  it('"." exports what a server author uses, and nothing else at runtime', () => {
    expect(Object.keys(core).sort()).toEqual(SERVER_AUTHOR_EXPORTS.sort());
  });

  it('"./adapter" exports the adapter author\'s helpers, none of them also on "."', () => {
    expect(Object.keys(adapterEntry).sort()).toEqual(ADAPTER_AUTHOR_EXPORTS.sort());
    expect(Object.keys(adapterEntry).filter((name) => name in core)).toEqual([]);
  });

  it('no entry point exports a test helper or the call-context plumbing', () => {
    const testHelpers = Object.keys(testing);
    expect(testHelpers).toEqual(expect.arrayContaining(['startUpstreamReplay', 'officialSuiteTools']));
    for (const entry of [core, adapterEntry, openapiEntry]) {
      expect(Object.keys(entry).filter((name) => testHelpers.includes(name))).toEqual([]);
      expect(Object.keys(entry)).not.toContain('recordResponseMetaInto');
    }
  });

  it('declares no "./testing" subpath', () => {
    const manifest = JSON.parse(readFileSync(new URL('package.json', PACKAGE_FOLDER), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    expect(Object.keys(manifest.exports)).toEqual(['.', './adapter', './openapi', './package.json']);
  });

  it('packs the built entry points and no test infrastructure', async () => {
    const files = await packedFiles();
    const paths = files.map((file) => file.path);
    expect(paths).toEqual(expect.arrayContaining(['dist/index.js', 'dist/adapter-entry.js', 'dist/openapi-entry.js']));
    expect(paths.filter((path) => /testing|fixture|\.test\./.test(path))).toEqual([]);
    const helperNames = /startUpstreamReplay|startRedisServer|officialSuiteTools|officialSuiteServerExtension/;
    expect(files.filter((file) => helperNames.test(file.text)).map((file) => file.path)).toEqual([]);
  });
});
