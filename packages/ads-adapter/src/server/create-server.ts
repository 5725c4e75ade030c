/**
 * `createAdsServer`: the reference Amazon Ads API MCP server, an envelope server (core) with the
 * Ads adapter, the built-in catalog, any `--models` tools, `set_region`, `set_active_profile` and
 * core's `get_envelope_contract`.
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';

import { createAmazonRedactor, LwaTokenClients } from '@mcp-envelope/amazon';
import { createEnvelopeServer } from '@mcp-envelope/core';
import { readToolHistory } from '@mcp-envelope/core';
import { SessionStates } from '@mcp-envelope/core/adapter';
import type { EnvelopeLogger, EnvelopeServer, EnvelopeServerOptions, EnvelopeTool } from '@mcp-envelope/core';
import { officialSuiteServerExtension, officialSuiteTools } from '@mcp-envelope/testing';

import { adsAdapter } from '../adapter.js';
import { ADS_REDACTIONS } from '../redaction.js';
import { BUILT_IN_OPERATIONS } from './catalog.js';
import { loadModelOperations } from './models.js';
import type { ModelLoadResult } from './models.js';
import { AdsSession } from './session.js';
import type { AdsSessions } from './session.js';
import { adsServerSettings } from './settings.js';
import type { AdsServerSettings } from './settings.js';
import { operationTool, setActiveProfileTool, setRegionTool } from './tools.js';

/** The server name sent at initialization. */
export const ADS_SERVER_NAME = 'mcp-envelope-ads';

/** Options of {@link createAdsServer}. */
export interface AdsServerOptions {
  /** Where settings are read from; defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** `--upstream URL`, as core's `upstreamFromCommandLine` gives it (checked, no trailing slash). */
  readonly upstream?: string;
  /** `--models DIR`: load OpenAPI 3 Ads descriptions from this folder as extra tools. */
  readonly modelsDir?: string;
  /** Upstream request timeout in milliseconds (default 30000). */
  readonly timeoutMs?: number;
  /** Server version sent at initialization (default the package version). */
  readonly version?: string;
  /** Where log lines go (default: pino on stderr). */
  readonly logger?: EnvelopeLogger;
  /** Passed to `createEnvelopeServer` (switch overrides, unknown-tool mode, page size, clock). */
  readonly envelope?: Omit<EnvelopeServerOptions, 'env' | 'logger'>;
  /** Also serve the official MCP conformance suite's fixture tools (`--conformance-fixtures`; `officialSuiteTools` of `@mcp-envelope/testing`). */
  readonly conformanceFixtures?: boolean;
}

/** What {@link createAdsServer} returns. */
export interface AdsServer {
  readonly envelope: EnvelopeServer;
  /**
   * Each MCP session's state (region, active profile), keyed by session id;
   * `sessions.forSession(undefined)` is the state of a connection without sessions (stdio).
   */
  readonly sessions: AdsSessions;
  readonly settings: AdsServerSettings;
  /** Every tool name, in `tools/list` order (without `get_envelope_contract`). */
  readonly toolNames: readonly string[];
  /** The `--models` load report, when a folder was given. */
  readonly models?: ModelLoadResult;
}

/** This package's version, read from its package.json (lockstep with every published package). */
export const ADS_PACKAGE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * Builds the reference server (not yet connected to a transport).
 *
 * @param options - see {@link AdsServerOptions}.
 * @returns the server, its sessions and settings.
 * @throws TypeError for unreadable settings (see `adsServerSettings`) or an invalid tool schema;
 *   LwaSettingsError for a malformed `LWA_TOKEN_URL`; Error when the `--models` folder cannot be listed.
 */
export async function createAdsServer(options: AdsServerOptions = {}): Promise<AdsServer> {
  const env = options.env ?? process.env;
  const settings = adsServerSettings(env, { upstream: options.upstream, timeoutMs: options.timeoutMs });
  // this server's redactor: its LWA clients register their secrets with it
  const redactor = createAmazonRedactor(ADS_REDACTIONS);
  const tokens = new LwaTokenClients<string>(settings.lwa, redactor);
  const sessions: AdsSessions = new SessionStates(() => new AdsSession(settings, tokens));
  const builtIn = BUILT_IN_OPERATIONS.map((operation) => operationTool(operation, sessions));
  const fixedTools: EnvelopeTool[] = [...builtIn, setRegionTool(sessions), setActiveProfileTool(sessions)];
  let models: ModelLoadResult | undefined;
  const modelTools: EnvelopeTool[] = [];
  if (options.modelsDir !== undefined) {
    models = await loadModelOperations(options.modelsDir, new Set(fixedTools.map((tool) => tool.name)));
    for (const operation of models.operations) modelTools.push(operationTool(operation, sessions));
    for (const skipped of models.skipped)
      options.logger?.warn({ file: skipped.file, reason: skipped.reason }, 'skipped a file in the --models folder');
  }
  const tools = [...fixedTools, ...modelTools, ...(options.conformanceFixtures === true ? officialSuiteTools() : [])];
  const envelope = createEnvelopeServer({
    info: { name: ADS_SERVER_NAME, version: options.version ?? ADS_PACKAGE_VERSION },
    adapter: adsAdapter,
    tools,
    redactor,
    options: {
      // the first call's access token is fetched while the client reads the tool list
      // a new session's first call uses the starting region's token
      warmUp: (signal) => new AdsSession(settings, tokens).route().tokens.accessToken(signal),
      // a call with a property renamed since an earlier release is told the new name
      toolHistory: readToolHistory(new URL('../../tools.lock.json', import.meta.url)),
      ...options.envelope,
      onSessionClosed: (sessionId) => {
        sessions.forget(sessionId);
        options.envelope?.onSessionClosed?.(sessionId);
      },
      env,
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      instructions:
        'Amazon Ads API tools. Start with list_profiles, then set_active_profile; switch regions with set_region. Every failure is a JSON error envelope (see get_envelope_contract).',
      ...(options.conformanceFixtures === true ? { extendSdkServer: officialSuiteServerExtension } : {}),
    },
  });
  return {
    envelope,
    sessions,
    settings,
    toolNames: tools.map((tool) => tool.name),
    ...(models === undefined ? {} : { models }),
  };
}
