/**
 * Recorded upstream cases: data files `cases/<server>-<scenario>.json`. Each names a tool call, the
 * upstream answers the replay server gives for it, and what the reference server must make of
 * them, once for each reader: `expected` for a client that reads version 2 (an envelope's kind,
 * code, `upstream`, retryable, `legacy_error_kind`, `_meta`, or a success `_meta`) and
 * `expected_v1` for a client that states no version (the version 1 kind, code, legacy and `_meta`).
 *
 * @packageDocumentation
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ERROR_KINDS, ERROR_KINDS_V1 } from '@mcp-envelope/contract';
import type { ErrorKind, ErrorKindV1 } from '@mcp-envelope/contract';
import type { RecordedResponse, ReplayRoute } from '@mcp-envelope/testing';

import { isRecord } from '@mcp-envelope/contract';
import { descriptorPath } from './descriptor.js';
import type { GateServer } from './descriptor.js';
import { PACKAGE_ROOT, takesPart, VARIANT_NAMES } from './reference-servers.js';
import type { ServerId, VariantName } from './reference-servers.js';

/** A call the reference server should turn into a version 2 envelope (what a reader of v2 gets). */
export interface ExpectedEnvelope {
  readonly outcome: 'error';
  readonly error_kind: ErrorKind;
  readonly error_code: string;
  /** The upstream the envelope names; absent means it names none. */
  readonly upstream?: string;
  readonly retryable: boolean;
  /**
   * True when the envelope must say its effect is unknown (CONTRACT.md "Safe retries"): a
   * `details[]` entry with `reason: "effect_unknown"`, and then `retryable: false`. Absent: no such detail.
   */
  readonly effect_unknown?: boolean;
  /** Present exactly when the envelope must carry it (an open version 2 migration window). */
  readonly legacy_error_kind?: ErrorKind | ErrorKindV1;
  /** The exact `_meta`; absent means the envelope has none. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** The same call as a reader of version 1 gets it: a version 1 envelope. */
export interface ExpectedEnvelopeV1 {
  readonly outcome: 'error';
  readonly error_kind: ErrorKindV1;
  readonly error_code: string;
  readonly retryable: boolean;
  /**
   * True when the envelope must say its effect is unknown (CONTRACT.md "Safe retries"): a
   * `details[]` entry with `reason: "effect_unknown"`, and then `retryable: false`. Absent: no such detail.
   */
  readonly effect_unknown?: boolean;
  /** Present exactly when the envelope must carry it (an open version 1 migration window). */
  readonly legacy_error_kind?: ErrorKindV1;
  /** The exact `_meta`; absent means the envelope has none. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** A call the reference server should answer with a success result. */
export interface ExpectedSuccess {
  readonly outcome: 'success';
  /** The exact `_meta` of `structuredContent`; absent means it has none. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** One recorded case. */
export interface UpstreamCase {
  /** `<server>-<scenario>`, the file name without `.json`. */
  readonly id: string;
  readonly server: ServerId;
  readonly about: string;
  /** The server configuration the call runs in (`main` unless the file says otherwise, e.g. `identities`). */
  readonly variant: VariantName;
  readonly call: { readonly tool: string; readonly arguments: Readonly<Record<string, unknown>> };
  /** The answers the replay server gives, by route. */
  readonly upstream: readonly ReplayRoute[];
  /** What a client that reads version 2 gets. */
  readonly expected: ExpectedEnvelope | ExpectedSuccess;
  /** What a client that states no version gets, on a server that speaks version 1 (absent on one that does not). */
  readonly expected_v1?: ExpectedEnvelopeV1 | ExpectedSuccess;
}

function problem(file: string, message: string): Error {
  return new Error(`${file}: ${message}`);
}

function checkRoute(file: string, route: unknown, index: number): ReplayRoute {
  if (
    !isRecord(route) ||
    typeof route['path'] !== 'string' ||
    !isRecord(route['response']) ||
    typeof route['response']['status'] !== 'number'
  ) {
    throw problem(file, `upstream[${index}] needs a path and a response with a numeric status`);
  }
  return route as unknown as ReplayRoute & { response: RecordedResponse };
}

/** The kinds and legacy kinds an expectation of each version may name. */
const EXPECTED_VOCABULARY = {
  expected: { version: 2, kinds: ERROR_KINDS, legacy: [...ERROR_KINDS, ...ERROR_KINDS_V1] },
  expected_v1: { version: 1, kinds: ERROR_KINDS_V1, legacy: ERROR_KINDS_V1 },
} as const;

/** An expectation's common part: an object, `_meta` an object when present, `outcome` known. */
function checkOutcome(file: string, key: string, expected: unknown): Record<string, unknown> {
  if (!isRecord(expected)) throw problem(file, `${key} must be an object`);
  if (expected['_meta'] !== undefined && !isRecord(expected['_meta']))
    throw problem(file, `${key}._meta must be an object when present`);
  if (expected['outcome'] !== 'success' && expected['outcome'] !== 'error')
    throw problem(file, `${key}.outcome must be "error" or "success"`);
  return expected;
}

function checkExpected(
  file: string,
  key: keyof typeof EXPECTED_VOCABULARY,
  value: unknown,
): ExpectedEnvelope | ExpectedEnvelopeV1 | ExpectedSuccess {
  const expected = checkOutcome(file, key, value);
  if (expected['outcome'] === 'success') return expected as unknown as ExpectedSuccess;
  const { version, kinds, legacy: legacyKinds } = EXPECTED_VOCABULARY[key];
  if (typeof expected['error_kind'] !== 'string' || !(kinds as readonly string[]).includes(expected['error_kind']))
    throw problem(file, `${key}.error_kind must be a kind of the version ${version} taxonomy`);
  if (typeof expected['error_code'] !== 'string' || typeof expected['retryable'] !== 'boolean')
    throw problem(file, `${key} needs error_code (string) and retryable (boolean)`);
  const effectUnknown = expected['effect_unknown'];
  if (effectUnknown !== undefined && (effectUnknown !== true || expected['retryable']))
    throw problem(file, `${key}.effect_unknown may only be true, beside retryable: false`);
  const legacy = expected['legacy_error_kind'];
  if (legacy !== undefined && (typeof legacy !== 'string' || !(legacyKinds as readonly string[]).includes(legacy)))
    throw problem(file, `${key}.legacy_error_kind must be a kind of version ${version === 2 ? '1 or 2' : '1'}`);
  const upstream = expected['upstream'];
  if (version === 1 && upstream !== undefined) throw problem(file, 'expected_v1 has no upstream (version 1 has none)');
  if (upstream !== undefined && (typeof upstream !== 'string' || !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(upstream)))
    throw problem(file, 'expected.upstream must be an upstream name (lower case letters, digits, ".", "_", "-")');
  return expected as unknown as ExpectedEnvelope | ExpectedEnvelopeV1;
}

/**
 * Reads and checks one case file.
 *
 * @param path - the file.
 * @returns the case.
 * @throws Error naming the file when it is not valid JSON or not a case.
 */
export function readCase(path: string): UpstreamCase {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!isRecord(value)) throw problem(name, 'not an object');
  const server = value['server'];
  if (typeof server !== 'string' || server === '') throw problem(name, 'server must name the server (its id)');
  if (value['id'] !== name.replace(/\.json$/, '')) throw problem(name, 'id must equal the file name without .json');
  if (!name.startsWith(`${server}-`)) throw problem(name, `the file name must start with "${server}-"`);
  const call = value['call'];
  if (!isRecord(call) || typeof call['tool'] !== 'string' || !isRecord(call['arguments']))
    throw problem(name, 'call needs a tool name and an arguments object');
  const upstream = value['upstream'];
  if (!Array.isArray(upstream)) throw problem(name, 'upstream must be a list of routes');
  const variant = value['variant'] ?? 'main';
  if (typeof variant !== 'string' || !(VARIANT_NAMES as readonly string[]).includes(variant))
    throw problem(name, `variant must be one of ${VARIANT_NAMES.join(', ')}`);
  return {
    id: value['id'],
    server,
    about: typeof value['about'] === 'string' ? value['about'] : '',
    variant: variant as VariantName,
    call: { tool: call['tool'], arguments: call['arguments'] },
    upstream: upstream.map((route, index) => checkRoute(name, route, index)),
    expected: checkExpected(name, 'expected', value['expected']) as ExpectedEnvelope | ExpectedSuccess,
    ...(value['expected_v1'] === undefined
      ? {}
      : {
          expected_v1: checkExpected(name, 'expected_v1', value['expected_v1']) as ExpectedEnvelopeV1 | ExpectedSuccess,
        }),
  };
}

/**
 * Every case in a folder, sorted by file name.
 *
 * @param folder - e.g. `conformance/cases`.
 * @returns the cases.
 * @throws Error for the first file that is not a case.
 */
export function readCases(folder: string): UpstreamCase[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => readCase(join(folder, name)));
}

/**
 * The recorded cases of the gated servers: from each descriptor's `cases` folder, the files named
 * `<id>-*.json` (servers may share a folder), checked with {@link checkCases}.
 *
 * @param servers - the gated servers.
 * @param gateRoot - the conformance package's root (for `{gate}/...` folders).
 * @returns the cases, server by server, each sorted by file name.
 * @throws Error for the first file that is not a case or does not fit its server.
 */
export function serverCases(servers: readonly GateServer[], gateRoot: string): UpstreamCase[] {
  const cases = servers.flatMap((server) => {
    const folder = descriptorPath(server, server.cases, gateRoot);
    return readdirSync(folder)
      .filter((name) => name.startsWith(`${server.id}-`) && name.endsWith('.json'))
      .sort()
      .map((name) => readCase(join(folder, name)));
  });
  checkCases(cases, servers);
  return cases;
}

/**
 * Checks cases against the gated servers: each names a gated server, runs in a variant its
 * server takes part in, and has `expected_v1` exactly when its server speaks version 1.
 *
 * @param cases - the cases read.
 * @param servers - the gated servers.
 * @throws Error naming the first case that does not fit.
 */
export function checkCases(cases: readonly UpstreamCase[], servers: readonly GateServer[]): void {
  for (const recorded of cases) {
    const server = servers.find((entry) => entry.id === recorded.server);
    const file = `${recorded.id}.json`;
    if (server === undefined)
      throw problem(file, `server must be one of ${servers.map((entry) => entry.id).join(', ')}`);
    if (!takesPart(server, recorded.variant))
      throw problem(
        file,
        `server ${server.id} does not take part in variant ${recorded.variant} (its descriptor's variants)`,
      );
    const speaksV1 = server.contract_versions.includes(1);
    if (speaksV1 !== (recorded.expected_v1 !== undefined))
      throw problem(
        file,
        speaksV1
          ? 'expected_v1 is required: the server speaks version 1'
          : 'expected_v1 is for servers that speak version 1',
      );
  }
}

/**
 * The cases the gate replays: those of every server's descriptor, or every case of one folder.
 *
 * @param servers - the gated servers.
 * @param folder - one folder of cases for all servers (default: each descriptor's own).
 * @returns the checked cases.
 * @throws Error for a file that is not a case or does not fit its server.
 */
export function gateCases(servers: readonly GateServer[], folder?: string): UpstreamCase[] {
  if (folder === undefined) return serverCases(servers, PACKAGE_ROOT);
  const cases = readCases(folder);
  checkCases(cases, servers);
  return cases;
}
