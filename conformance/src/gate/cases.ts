/**
 * Recorded upstream cases: data files `cases/<server>-<scenario>.json`. Each names a tool call, the
 * upstream answers the replay server gives for it, and what the reference server must make of
 * them: an envelope (kind, code, retryable, `legacy_error_kind`, `_meta`) or a success `_meta`.
 *
 * @packageDocumentation
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ERROR_KINDS } from '@mcp-envelope/contract';
import type { ErrorKind } from '@mcp-envelope/contract';
import type { RecordedResponse, ReplayRoute } from '@mcp-envelope/core/testing';

import { isRecord } from '../json-schema.js';
import { SERVER_IDS, VARIANT_NAMES } from './reference-servers.js';
import type { ServerId, VariantName } from './reference-servers.js';

/** A call the reference server should turn into an envelope. */
export interface ExpectedEnvelope {
  readonly outcome: 'error';
  readonly error_kind: ErrorKind;
  readonly error_code: string;
  readonly retryable: boolean;
  /** Present exactly when the envelope must carry it (an open migration window). */
  readonly legacy_error_kind?: ErrorKind;
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
  readonly expected: ExpectedEnvelope | ExpectedSuccess;
}

/** The folder of the package's own cases. */
export function defaultCasesFolder(packageRoot: string): string {
  return join(packageRoot, 'cases');
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

function checkExpected(file: string, expected: unknown): ExpectedEnvelope | ExpectedSuccess {
  if (!isRecord(expected)) throw problem(file, 'expected must be an object');
  if (expected['_meta'] !== undefined && !isRecord(expected['_meta']))
    throw problem(file, 'expected._meta must be an object when present');
  if (expected['outcome'] === 'success') return expected as unknown as ExpectedSuccess;
  if (expected['outcome'] !== 'error') throw problem(file, 'expected.outcome must be "error" or "success"');
  const kinds: readonly string[] = ERROR_KINDS;
  if (typeof expected['error_kind'] !== 'string' || !kinds.includes(expected['error_kind']))
    throw problem(file, 'expected.error_kind must be a kind of the taxonomy');
  if (typeof expected['error_code'] !== 'string' || typeof expected['retryable'] !== 'boolean')
    throw problem(file, 'expected needs error_code (string) and retryable (boolean)');
  const legacy = expected['legacy_error_kind'];
  if (legacy !== undefined && (typeof legacy !== 'string' || !kinds.includes(legacy)))
    throw problem(file, 'expected.legacy_error_kind must be a kind of the taxonomy');
  return expected as unknown as ExpectedEnvelope;
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
  if (typeof server !== 'string' || !(SERVER_IDS as readonly string[]).includes(server))
    throw problem(name, `server must be one of ${SERVER_IDS.join(', ')}`);
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
    server: server as ServerId,
    about: typeof value['about'] === 'string' ? value['about'] : '',
    variant: variant as VariantName,
    call: { tool: call['tool'], arguments: call['arguments'] },
    upstream: upstream.map((route, index) => checkRoute(name, route, index)),
    expected: checkExpected(name, value['expected']),
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
