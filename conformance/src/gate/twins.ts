/**
 * The tie between a version 1 fixture and its version 2 twin (same server, same file name): the
 * version 1 file must be exactly the contract's projection of the version 2 one, `toV1Envelope`
 * plus the legacy kind of an open version 1 window, so the two sets cannot drift apart.
 *
 * @packageDocumentation
 */
import { isDeepStrictEqual } from 'node:util';

import { activeMigrations, MIGRATIONS, toV1EnvelopeOfServer, toV1Meta } from '@mcp-envelope/contract';
import type { EnvelopeMeta, ErrorEnvelope, MigrationEntry } from '@mcp-envelope/contract';

import { isRecord } from '@mcp-envelope/contract';

/** What the projection of one server needs: its id, the API it fronts, the release it is. */
export interface TwinServer {
  /** The server id of the migrations table (`sp`, `ads`). */
  readonly id: string;
  /** The server's first advertised upstream: only its answers are the `upstream_http` condition. */
  readonly primaryUpstream: string | undefined;
  /** The release the server is (selects the open migration windows). */
  readonly release: string;
  /** The migrations table (default the contract's). */
  readonly migrations?: readonly MigrationEntry[];
}

/**
 * The version 1 envelope a reader of version 1 must get for a version 2 envelope: its projection
 * plus the `legacy_error_kind` of an open version 1 window (CONTRACT.md "Versioning").
 *
 * @param envelope - the version 2 envelope.
 * @param server - see {@link TwinServer}.
 * @returns the version 1 envelope, or `undefined` when version 1 cannot express it.
 */
export function expectedV1Envelope(envelope: ErrorEnvelope, server: TwinServer): Record<string, unknown> | undefined {
  const projected = toV1EnvelopeOfServer(envelope, {
    serverId: server.id,
    primaryUpstream: server.primaryUpstream,
    openMigrations: activeMigrations(server.release, server.migrations ?? MIGRATIONS),
  });
  return projected === undefined ? undefined : { ...projected };
}

/** The top-level keys on which two objects differ, sorted. */
function differingKeys(left: Readonly<Record<string, unknown>>, right: Readonly<Record<string, unknown>>): string[] {
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  return [...keys].filter((key) => !isDeepStrictEqual(left[key], right[key])).sort();
}

/** A success's data as a reader of version 1 gets it: `_meta.rate_limit` reduced to the version 1 keys. */
function expectedV1Success(data: Readonly<Record<string, unknown>>): Record<string, unknown> {
  if (!isRecord(data['_meta'])) return { ...data };
  const meta: EnvelopeMeta = data['_meta'];
  return { ...data, _meta: toV1Meta(meta) };
}

/**
 * Checks a version 1 fixture document against its version 2 twin.
 *
 * @param v1 - the version 1 fixture (`{ _fixture_meta, envelope }` or `{ _fixture_meta, response }`).
 * @param v2 - its version 2 twin.
 * @param server - see {@link TwinServer}.
 * @returns one line per problem; empty when the version 1 file is the twin's projection.
 */
export function twinProblems(v1: unknown, v2: unknown, server: TwinServer): string[] {
  if (!isRecord(v1) || !isRecord(v2)) return ['a fixture of the pair is not an object'];
  if (isRecord(v2['envelope'])) {
    if (!isRecord(v1['envelope'])) return ['the v2 twin holds an envelope, the v1 file none'];
    const expected = expectedV1Envelope(v2['envelope'] as unknown as ErrorEnvelope, server);
    if (expected === undefined) return ['the v2 twin names an upstream that version 1 cannot express'];
    const keys = differingKeys(v1['envelope'], expected);
    return keys.length === 0 ? [] : [`differs from toV1Envelope(v2 twin) + v1 legacy at ${keys.join(', ')}`];
  }
  const response = isRecord(v2['response']) ? v2['response']['structuredContent'] : undefined;
  const mine = isRecord(v1['response']) ? v1['response']['structuredContent'] : undefined;
  if (!isRecord(response) || !isRecord(mine)) return ['the pair does not hold the same kind of payload'];
  const keys = differingKeys(mine, expectedV1Success(response));
  return keys.length === 0 ? [] : [`differs from the v2 twin's data with a v1 _meta at ${keys.join(', ')}`];
}
