/**
 * Per-session identity state and the `list_identities` / `set_active_identity` tools. Each MCP
 * session (one per Streamable HTTP client; the one stdio client) owns its active identity, so two
 * clients of one server never act as each other's seller.
 *
 * @packageDocumentation
 */
import { EnvelopeError, UpstreamHttpError } from '@mcp-envelope/core';
import type { EnvelopeWarning } from '@mcp-envelope/contract';
import type { EnvelopeTool } from '@mcp-envelope/core';
import type { SessionStates } from '@mcp-envelope/core/adapter';

import type { SpIdentity, SpIdentitySource } from './identities.js';
import { parseSpRegion, SP_REGION_CODES } from './regions.js';
import type { SpRegion } from './regions.js';

/** The domain-validator code of `set_active_identity` (an id not in the cached identity list). */
export const SP_IDENTITY_NOT_FOUND_CODE = 'SCHEMA_IDENTITY_NOT_FOUND' as const;

/** The mutable state of one MCP session. */
export interface SpSessionState {
  /** The active identity's id; `undefined` uses the server's `LWA_*` credentials. */
  identityId: number | undefined;
  /** A region chosen with `set_region` in this session, over the identity's. */
  region: SpRegion | undefined;
  /** A sandbox choice made with `set_region` in this session, over the server's setting. */
  sandbox?: boolean | undefined;
}

function identityWarning(summary: string): EnvelopeWarning {
  return {
    kind: 'identity_unverified',
    summary,
    details: [],
    hints: ['Call list_identities to see the identities the server knows.'],
  };
}

/** The id nearest to `id` among `ids`, for a `did_you_mean` hint. */
function nearestId(id: number, ids: readonly number[]): number | undefined {
  let best: number | undefined;
  for (const candidate of ids)
    if (best === undefined || Math.abs(candidate - id) < Math.abs(best - id)) best = candidate;
  return best;
}

function notFoundError(id: number, identities: readonly SpIdentity[]): EnvelopeError {
  const ids = identities.map((identity) => identity.id);
  const nearest = nearestId(id, ids);
  const listed = identities.slice(0, 10).map((identity) => `${identity.id} (${identity.name}, ${identity.region})`);
  return new EnvelopeError({
    error_kind: 'mcp_input_validation',
    error_code: SP_IDENTITY_NOT_FOUND_CODE,
    summary: `No identity ${id}: the server knows ${ids.length} identit${ids.length === 1 ? 'y' : 'ies'}.`,
    details: [
      {
        path: 'identity_id',
        field: 'identity_id',
        issue: `${id} is not one of the identity ids the server knows.`,
        received_type: 'integer',
        allowed: ids.slice(0, 50),
      },
    ],
    hints: [
      ...(nearest === undefined ? [] : [`Did you mean ${nearest}? Got ${id}.`]),
      `Known identities: ${listed.join('; ')}${ids.length > 10 ? '; ...' : ''}.`,
    ],
  });
}

/** An identity service refusal of credentials is not a cache outage: it is the caller's to fix. */
function isCredentialFailure(error: unknown): boolean {
  return (
    EnvelopeError.isInstance(error) ||
    (UpstreamHttpError.isInstance(error) && (error.status === 401 || error.status === 403))
  );
}

/**
 * `set_active_identity`: checks the id against the identity list (the contract's domain-validator
 * pattern: `SCHEMA_IDENTITY_NOT_FOUND` with the allowed ids and a `did_you_mean` hint), then makes
 * it the identity of this session's later SP-API calls. When the list is empty or cannot be read
 * (the service is down or rate-limited), the id is accepted unverified with an
 * `identity_unverified` warning; the next SP-API call then finds out. A refusal of the service's own
 * credentials (401/403) is answered as such.
 *
 * @param source - the identities.
 * @param sessions - the per-session state.
 * @returns the tool.
 */
export function setActiveIdentityTool(source: SpIdentitySource, sessions: SessionStates<SpSessionState>): EnvelopeTool {
  return {
    name: 'set_active_identity',
    title: 'Choose the selling partner',
    description:
      'Makes an identity (a selling partner from list_identities) the one whose refresh token, region and marketplaces every later SP-API call of this session uses.',
    annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: true },
    inputSchema: {
      type: 'object',
      // ids are safe integers (the identity parsers refuse others), so a larger id is refused here
      // even when the list cannot be read to check it
      properties: {
        identity_id: {
          type: 'integer',
          minimum: 1,
          maximum: Number.MAX_SAFE_INTEGER,
          description: 'An id from list_identities.',
        },
      },
      required: ['identity_id'],
      additionalProperties: false,
    },
    inputSchemaCheck: 'first-call',
    handler: async (args, context) => {
      const id = args['identity_id'] as number;
      let identities: readonly SpIdentity[];
      try {
        identities = await source.list(context);
      } catch (error) {
        if (isCredentialFailure(error)) throw error;
        context.recordResponseMeta({
          warnings: [
            identityWarning(`Identity ${id} was set without checking it: the identity list could not be read.`),
          ],
        });
        return activate(sessions.of(context), id, undefined);
      }
      const identity = identities.find((candidate) => candidate.id === id);
      if (identity === undefined && identities.length > 0) throw notFoundError(id, identities);
      if (identity === undefined)
        context.recordResponseMeta({
          warnings: [identityWarning(`Identity ${id} was set without checking it: the identity list is empty.`)],
        });
      return activate(sessions.of(context), id, identity);
    },
  };
}

function activate(state: SpSessionState, id: number, identity: SpIdentity | undefined): Record<string, unknown> {
  state.identityId = id;
  state.region = undefined;
  return identity === undefined
    ? { identity_id: id, verified: false }
    : {
        identity_id: id,
        verified: true,
        name: identity.name,
        region: identity.region,
        marketplace_ids: [...identity.marketplace_ids],
      };
}

function regionFilter(value: unknown): SpRegion | undefined {
  if (value === undefined) return undefined;
  const region = typeof value === 'string' ? parseSpRegion(value) : undefined;
  if (region !== undefined) return region;
  throw new EnvelopeError({
    error_kind: 'mcp_input_validation',
    error_code: 'INPUT_VALIDATION_FAILED',
    summary: `The region ${JSON.stringify(value).slice(0, 42)} names no SP-API region.`,
    details: [
      {
        path: 'region',
        field: 'region',
        issue: `must be ${SP_REGION_CODES.join(', ')} or a name of one (Europe, Japan, a marketplace country)`,
        received_type: typeof value,
        allowed: [...SP_REGION_CODES],
      },
    ],
    hints: [
      'Give a region code (na, eu, fe), a region name (North America, Europe, Far East) or a marketplace country (US, DE, JP).',
    ],
  });
}

/**
 * `list_identities`: the identities the server knows (id, name, region, marketplaces; never
 * tokens), read fresh from the source, and which one this session uses. The optional `region`
 * filter is free text (`Europe`, `de`, `eu`), checked by a typed validator that answers
 * `INPUT_VALIDATION_FAILED` when it names no region.
 *
 * @param source - the identities.
 * @param sessions - the per-session state.
 * @returns the tool.
 */
export function listIdentitiesTool(source: SpIdentitySource, sessions: SessionStates<SpSessionState>): EnvelopeTool {
  return {
    name: 'list_identities',
    title: 'List the selling partners',
    description:
      'Lists the identities (selling partners) this server can act as: id, name, region and marketplace ids. Pass an id to set_active_identity.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
    inputSchema: {
      type: 'object',
      properties: {
        region: {
          type: 'string',
          description: 'Only identities of this region: a code (na, eu, fe) or a name (Europe, Japan, DE).',
        },
      },
      additionalProperties: false,
    },
    inputSchemaCheck: 'first-call',
    handler: async (args, context) => {
      const region = regionFilter(args['region']);
      const identities = await source.list(context);
      const shown = identities.filter((identity) => region === undefined || identity.region === region);
      const active = sessions.of(context).identityId;
      return {
        identities: shown.map((identity) => ({
          id: identity.id,
          name: identity.name,
          region: identity.region,
          marketplace_ids: [...identity.marketplace_ids],
        })),
        active_identity_id: active ?? null,
        source: source.kind,
      };
    },
  };
}
