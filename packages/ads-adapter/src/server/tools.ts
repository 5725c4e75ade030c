/**
 * The reference server's tools: one per upstream operation, plus `set_region` and
 * `set_active_profile`. Every upstream call goes through core's `upstreamFetch` (so failures are
 * classified by the Ads adapter and response headers land in `_meta`).
 *
 * @packageDocumentation
 */
import type { EnvelopeWarning } from '@mcp-envelope/contract';
import { EnvelopeError, UpstreamHttpError } from '@mcp-envelope/core';
import { headerRecord } from '@mcp-envelope/core/adapter';
import { buildOperationRequest } from '@mcp-envelope/core/openapi';
import { LwaError } from '@mcp-envelope/amazon';
import type { EnvelopeTool, ToolHandlerContext } from '@mcp-envelope/core';

import { ADS_PROFILE_NOT_FOUND_CODE } from '../adapter.js';
import { ADS_HINTS, ADS_REGION_ALIASES, ADS_REGIONS, ADS_REQUEST_HEADERS } from '../hint-tables.js';
import { expectedMediaType } from '../media-types.js';
import { adsPartialResultsWarning } from '../partial-results.js';
import { BUILT_IN_OPERATIONS } from './catalog.js';
import { adsOperationAnnotations } from './operation.js';
import type { AdsOperation } from './operation.js';
import { profilesFromBody } from './session.js';
import type { AdsProfile, AdsRoute, AdsSession, AdsSessions } from './session.js';
import { SELECTABLE_ADS_REGIONS } from './settings.js';
import type { SelectableAdsRegion } from './settings.js';

function noActiveProfile(tool: AdsOperation): EnvelopeError {
  return new EnvelopeError({
    error_kind: 'auth_error',
    error_code: 'AUTHENTICATION_ERROR',
    summary: `${tool.name} needs an active profile (Amazon-Advertising-API-Scope) and none is set.`,
    details: [
      {
        path: '',
        issue: 'No active profile: set ADS_API_PROFILE_ID or call set_active_profile.',
        received_type: 'null',
      },
    ],
    hints: ['Call list_profiles, then set_active_profile with one of the profile ids it returns.'],
  });
}

/**
 * The account headers an operation needs: the active profile as `Amazon-Advertising-API-Scope`,
 * or the unified v1 `Amazon-Ads-AccountId`. Checked before any token request.
 *
 * @throws EnvelopeError (`auth_error`) when the operation needs a profile and none is active.
 */
function accountHeaders(operation: AdsOperation, session: AdsSession): Record<string, string> {
  const clientId = session.clientId();
  const profileId = session.profileId;
  if (operation.accountHeader === 'profile') {
    if (profileId === undefined) throw noActiveProfile(operation);
    return { [ADS_REQUEST_HEADERS.scope]: String(profileId) };
  }
  if (operation.accountHeader === 'account') {
    const accountId = session.accountId();
    if (accountId === undefined) throw noActiveProfile(operation);
    return {
      [ADS_REQUEST_HEADERS.unifiedClientId]: clientId,
      [ADS_REQUEST_HEADERS.unifiedAccountId]: accountId,
      ...(profileId === undefined ? {} : { [ADS_REQUEST_HEADERS.scope]: String(profileId) }),
    };
  }
  return {};
}

/**
 * Sends one operation call: token, account headers, vendor media type, body; records a
 * `partial_results` warning when a 2xx answer lists failed items. The token and host come from
 * `route`, read by the caller before any await; waiting for the token ends when the call's signal
 * aborts.
 *
 * @returns the parsed 2xx body.
 * @throws EnvelopeError for LWA failures and a missing profile; `UpstreamHttpError` /
 *   `UpstreamClientError` from `upstreamFetch` for the adapter to classify.
 */
async function callOperation(
  operation: AdsOperation,
  session: AdsSession,
  route: AdsRoute,
  args: Record<string, unknown>,
  context: ToolHandlerContext,
): Promise<unknown> {
  const account = accountHeaders(operation, session);
  const token = await route.tokens.accessToken(context.signal);
  const headers = {
    [ADS_REQUEST_HEADERS.authorization]: `Bearer ${token}`,
    [ADS_REQUEST_HEADERS.clientId]: session.clientId(),
    ...account,
  };
  let callArgs = args;
  if (operation.flatBody === true && operation.body !== undefined) {
    const parameterProperties = new Set(operation.parameters.map((parameter) => parameter.property));
    const body = Object.fromEntries(Object.entries(args).filter(([key]) => !parameterProperties.has(key)));
    callArgs = {
      ...Object.fromEntries(Object.entries(args).filter(([key]) => parameterProperties.has(key))),
      [operation.body.property]: body,
    };
  }
  const request = buildOperationRequest(operation, callArgs, route.baseUrl);
  const mediaType = operation.mediaType ?? expectedMediaType(operation.method, operation.path);
  const sent: Record<string, string> = { ...request.headers, ...headers, accept: mediaType ?? 'application/json' };
  if (request.body !== undefined && mediaType !== undefined) sent['content-type'] = mediaType;
  let response: Response;
  try {
    response = await context.fetch(request.url, {
      method: request.method,
      headers: sent,
      ...(request.body === undefined ? {} : { body: request.body }),
      timeoutMs: session.settings.timeoutMs,
    });
  } catch (error) {
    if (UpstreamHttpError.isInstance(error) && error.status === 401) route.tokens.invalidate();
    throw error;
  }
  // a body that is only an Ads error object ends the call as the failure it reports
  const value = await context.readBody(response);
  const partial = adsPartialResultsWarning(response.status, value, headerRecord(response.headers));
  if (partial !== undefined) context.recordResponseMeta({ warnings: [partial] });
  return value;
}

/** The profile or account an operation's call acts for (its rate limit identity); `undefined` for calls without one. */
function adsIdentity(operation: AdsOperation, session: AdsSession): string | undefined {
  if (operation.accountHeader === 'account') {
    const accountId = session.accountId();
    return accountId === undefined ? undefined : `account:${accountId}`;
  }
  if (operation.accountHeader === 'profile' && session.profileId !== undefined)
    return `profile:${String(session.profileId)}`;
  return undefined;
}

/**
 * The tool for one upstream operation.
 *
 * @param operation - the operation.
 * @param sessions - the server's per-session state.
 * @returns the tool; `list_profiles` also refreshes the calling session's profile list.
 */
export function operationTool(operation: AdsOperation, sessions: AdsSessions): EnvelopeTool {
  return {
    name: operation.name,
    ...(operation.title === undefined ? {} : { title: operation.title }),
    description: operation.description,
    inputSchema: operation.inputSchema,
    annotations: operation.annotations ?? adsOperationAnnotations(operation.method, operation.path),
    // no published plan: the limiter learns one from X-RateLimit-* headers and 429s, per profile
    // or account the call is sent for
    rateLimitIdentity: (_args, context) => adsIdentity(operation, sessions.of(context)),
    handler: async (args, context) => {
      const session = sessions.of(context);
      // read before any await: a set_region meanwhile must not mix this call's token, host and profiles
      const route = session.route();
      const value = await callOperation(operation, session, route, args, context);
      if (operation.name === 'list_profiles') session.rememberProfiles(profilesFromBody(value), route.region);
      return operation.resultKey !== undefined && Array.isArray(value) ? { [operation.resultKey]: value } : value;
    },
  };
}

const LIST_PROFILES = BUILT_IN_OPERATIONS.find((operation) => operation.name === 'list_profiles');

async function fetchProfiles(session: AdsSession, route: AdsRoute, context: ToolHandlerContext): Promise<AdsProfile[]> {
  if (LIST_PROFILES === undefined) return [];
  const profiles = profilesFromBody(await callOperation(LIST_PROFILES, session, route, {}, context));
  session.rememberProfiles(profiles, route.region);
  return profiles;
}

function profileLabel(profile: AdsProfile): string {
  const parts = [profile.countryCode, profile.accountInfo?.type, profile.accountInfo?.name].filter(
    (part): part is string => typeof part === 'string' && part !== '',
  );
  return parts.length === 0 ? String(profile.profileId) : `${profile.profileId} (${parts.join(', ')})`;
}

function profileWarning(summary: string, hint: string): EnvelopeWarning {
  return { kind: 'profile_scope_warning', summary, details: [], hints: [hint] };
}

/** The `SCHEMA_PROFILE_NOT_FOUND` refusal of `set_active_profile`, listing the ids the account has. */
function profileNotFound(profileId: number, profiles: readonly AdsProfile[], region: string): EnvelopeError {
  const available = profiles.slice(0, 10).map(profileLabel);
  return new EnvelopeError({
    error_kind: 'mcp_input_validation',
    error_code: ADS_PROFILE_NOT_FOUND_CODE,
    summary: `No profile ${profileId} is available to these credentials in region ${region}.`,
    details: [
      {
        path: 'profileId',
        field: 'profileId',
        issue: `${profileId} is not one of the ${profiles.length} profiles of this account in region ${region}.`,
        received_type: 'integer',
        allowed: profiles.slice(0, 50).map((candidate) => candidate.profileId),
      },
    ],
    hints: [
      `Available profiles: ${available.join('; ')}${profiles.length > 10 ? '; ...' : ''}.`,
      'Profiles belong to one region: call set_region first when the profile is in another one.',
    ],
  });
}

/**
 * `set_active_profile`: checks the id against the profiles the account has in the current region
 * (the contract's domain-validator pattern: `mcp_input_validation` / `SCHEMA_PROFILE_NOT_FOUND`
 * with the available ids in the hints), then makes it the scope of later calls. The region is the
 * one the call started in. When the profile list cannot be read for a reason other than
 * credentials or a cancelled call, the id is accepted unverified with a `profile_scope_warning`. Choosing an agency profile also warns, because campaign calls need an
 * advertiser (seller or vendor) profile.
 *
 * @param sessions - the server's per-session state (the profile is the calling session's).
 * @returns the tool.
 */
export function setActiveProfileTool(sessions: AdsSessions): EnvelopeTool {
  return {
    name: 'set_active_profile',
    title: 'Choose the active profile',
    description:
      'Makes a profile (from list_profiles, current region) the Amazon-Advertising-API-Scope of every later call.',
    annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: true },
    inputSchema: {
      type: 'object',
      properties: { profileId: { type: 'integer', minimum: 1, description: 'A profileId from list_profiles.' } },
      required: ['profileId'],
    },
    handler: async (args, context) => {
      const session = sessions.of(context);
      // the region the profile is checked in, read before any await
      const route = session.route();
      const profileId = args['profileId'] as number;
      let profiles: AdsProfile[];
      try {
        profiles = await fetchProfiles(session, route, context);
      } catch (error) {
        if (!profileListUnreadable(error, context.signal)) throw error;
        activate(session, profileId, route.region);
        context.recordResponseMeta({
          warnings: [
            profileWarning(
              `Profile ${profileId} was set without checking it: the profile list could not be read.`,
              'Call list_profiles to confirm the profile exists in this region.',
            ),
          ],
        });
        return { profileId, region: route.region, verified: false };
      }
      return checkedProfile(session, profileId, profiles, route.region, context);
    },
  };
}

/**
 * Whether a failed profile-list read leaves `set_active_profile` free to set the id unverified: the
 * list was unreadable (a 5xx, a network failure), not refused for the credentials, and the call
 * was not cancelled.
 */
function profileListUnreadable(error: unknown, signal: AbortSignal): boolean {
  if (signal.aborted || EnvelopeError.isInstance(error) || LwaError.isInstance(error)) return false;
  return !(UpstreamHttpError.isInstance(error) && (error.status === 401 || error.status === 403));
}

/**
 * Makes the profile active, as checked in `region`; refuses it when the session has switched to
 * another region meanwhile where the profile is not known (it would go to that region's host).
 */
function activate(session: AdsSession, profileId: number, region: SelectableAdsRegion): void {
  if (session.setProfile(profileId, region)) return;
  throw new EnvelopeError({
    error_kind: 'mcp_input_validation',
    error_code: ADS_PROFILE_NOT_FOUND_CODE,
    summary: `Profile ${profileId} was checked in region ${region}, but this session switched to region ${session.region} meanwhile, where it is not known.`,
    details: [
      {
        path: 'profileId',
        field: 'profileId',
        issue: `${profileId} is not a known profile of region ${session.region}.`,
        received_type: 'integer',
      },
    ],
    hints: ['Call list_profiles in the current region, then set_active_profile again.'],
  });
}

/** `set_active_profile` once the profile list of `region` was read: refuse, or set with its warnings. */
function checkedProfile(
  session: AdsSession,
  profileId: number,
  profiles: readonly AdsProfile[],
  region: SelectableAdsRegion,
  context: ToolHandlerContext,
): Record<string, unknown> {
  const profile = profiles.find((candidate) => candidate.profileId === profileId);
  if (profile === undefined && profiles.length > 0) throw profileNotFound(profileId, profiles, region);
  activate(session, profileId, region);
  if (profile === undefined) {
    context.recordResponseMeta({
      warnings: [
        profileWarning(
          `Profile ${profileId} was set without checking it: the account lists no profiles in region ${region}.`,
          'Call list_profiles to confirm the profile exists in this region.',
        ),
      ],
    });
    return { profileId, region, verified: false };
  }
  if (profile.accountInfo?.type === 'agency') {
    context.recordResponseMeta({
      warnings: [profileWarning(`Profile ${profileId} is an agency profile.`, ADS_HINTS.profileScope)],
    });
  }
  return {
    profileId,
    region,
    verified: true,
    ...(profile.countryCode === undefined ? {} : { countryCode: profile.countryCode }),
    ...(profile.accountInfo?.type === undefined ? {} : { accountType: profile.accountInfo.type }),
    ...(profile.accountInfo?.name === undefined ? {} : { accountName: profile.accountInfo.name }),
  };
}

/**
 * `set_region`: chooses the Ads region (`na`, `eu`, `fe`) whose host and LWA endpoint later calls
 * use. Aliases such as `us` or `europe` are refused by the enum with a `did_you_mean` hint.
 *
 * @param sessions - the server's per-session state (the region is the calling session's).
 * @returns the tool.
 */
export function setRegionTool(sessions: AdsSessions): EnvelopeTool {
  return {
    name: 'set_region',
    title: 'Choose the Ads API region',
    description: `Chooses the Amazon Ads API region: ${SELECTABLE_ADS_REGIONS.map((region) => `${region} (${ADS_REGIONS[region].label})`).join(', ')}. Clears the active profile unless it is known in the new region.`,
    annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
    inputSchema: {
      type: 'object',
      properties: {
        region: {
          type: 'string',
          enum: [...SELECTABLE_ADS_REGIONS],
          description: `Region id. Marketplace codes map as: us/ca/mx/br -> na; uk/de/fr/it/es/in/... -> eu; jp/au/sg -> fe (${Object.keys(ADS_REGION_ALIASES).length} aliases known).`,
        },
      },
      required: ['region'],
    },
    handler: (args, context) => {
      const session = sessions.of(context);
      const region = args['region'] as SelectableAdsRegion;
      const cleared = session.setRegion(region);
      return {
        region,
        host: session.route().baseUrl,
        activeProfileId: session.profileId ?? null,
        profileCleared: cleared,
      };
    },
  };
}
