/**
 * The reference server's mutable state. What an MCP session chose (its region, its active profile,
 * the profiles it has seen per region) belongs to that session, so two clients of one Streamable
 * HTTP server never call with each other's profile; the LWA token clients (one per token
 * endpoint, for the server's one set of credentials) are shared by every session.
 *
 * @packageDocumentation
 */
import type { LwaTokenClient, LwaTokenClients } from '@mcp-envelope/amazon';
import type { SessionStates } from '@mcp-envelope/core/adapter';

import { ADS_REGIONS } from '../hint-tables.js';
import type { AdsServerSettings, SelectableAdsRegion } from './settings.js';

/** The fields of an Ads profile the server reads (`GET /v2/profiles` items). */
export interface AdsProfile {
  readonly profileId: number;
  readonly countryCode?: string;
  readonly currencyCode?: string;
  readonly timezone?: string;
  readonly accountInfo?: {
    readonly id?: string;
    readonly type?: string;
    readonly name?: string;
    readonly marketplaceStringId?: string;
  };
}

function isProfile(value: unknown): value is AdsProfile {
  return (
    typeof value === 'object' && value !== null && typeof (value as { profileId?: unknown }).profileId === 'number'
  );
}

/**
 * Keeps only well-formed profiles from a `GET /v2/profiles` answer.
 *
 * @param value - the parsed body.
 * @returns the profiles; `[]` when the body is not a list.
 */
export function profilesFromBody(value: unknown): AdsProfile[] {
  return Array.isArray(value) ? value.filter(isProfile) : [];
}

/**
 * Where one call goes, read from its session at one moment: a `set_region` while the call waits
 * for its token must not send one region's token to another region's host.
 */
export interface AdsRoute {
  /** The session's region when the call started. */
  readonly region: SelectableAdsRegion;
  /** `--upstream` when set, else the region's host. */
  readonly baseUrl: string;
  /** `LWA_TOKEN_URL` when set, else the region's token endpoint. */
  readonly tokenUrl: string;
  /** The LWA token client of that endpoint (an LwaError from it reaches core as an `lwa` failure). */
  readonly tokens: LwaTokenClient;
}

/** The state of one MCP session of the reference server (see the module comment). */
export class AdsSession {
  readonly settings: AdsServerSettings;
  private currentRegion: SelectableAdsRegion;
  private activeProfile: number | undefined;
  private readonly profiles = new Map<SelectableAdsRegion, readonly AdsProfile[]>();
  private readonly tokens: LwaTokenClients<string>;

  /**
   * @param settings - see {@link AdsServerSettings}: the starting region and profile.
   * @param tokens - the server's token clients, one per token endpoint, shared by its sessions.
   */
  constructor(settings: AdsServerSettings, tokens: LwaTokenClients<string>) {
    this.settings = settings;
    this.tokens = tokens;
    this.currentRegion = settings.region;
    this.activeProfile = settings.profileId;
  }

  /** The current region. */
  get region(): SelectableAdsRegion {
    return this.currentRegion;
  }

  /** The active profile id, if any. */
  get profileId(): number | undefined {
    return this.activeProfile;
  }

  /** Where a call made now goes (see {@link AdsRoute}). */
  route(): AdsRoute {
    const region = this.currentRegion;
    const tokenUrl = this.settings.lwa.tokenUrl ?? ADS_REGIONS[region].tokenUrl;
    return {
      region,
      baseUrl: this.settings.upstream ?? ADS_REGIONS[region].host,
      tokenUrl,
      tokens: this.tokens.client(tokenUrl, { tokenUrl }),
    };
  }

  /** `LWA_CLIENT_ID`, sent as the client id header; `''` when unset (the token call fails first). */
  clientId(): string {
    return (this.settings.lwa.clientId ?? '').trim();
  }

  /** The `Amazon-Ads-AccountId` for unified v1 calls: `ADS_API_ACCOUNT_ID`, else the active profile id. */
  accountId(): string | undefined {
    return this.settings.accountId ?? (this.activeProfile === undefined ? undefined : String(this.activeProfile));
  }

  /**
   * Switches region. The active profile is kept only when it is one of the profiles already seen
   * in the new region (profiles are per region).
   *
   * @param region - the new region.
   * @returns whether the active profile was cleared.
   */
  setRegion(region: SelectableAdsRegion): boolean {
    this.currentRegion = region;
    const known = this.profiles.get(region);
    if (
      this.activeProfile !== undefined &&
      !(known ?? []).some((profile) => profile.profileId === this.activeProfile)
    ) {
      this.activeProfile = undefined;
      return true;
    }
    return false;
  }

  /**
   * Makes `profileId` the active profile (validation is the caller's), unless it was checked in
   * another region than the current one and is not among the profiles seen in the current one: a
   * `set_region` ran while it was being checked.
   *
   * @param profileId - the profile.
   * @param region - the region it was checked in (default: the current one).
   * @returns whether it was set.
   */
  setProfile(profileId: number, region: SelectableAdsRegion = this.currentRegion): boolean {
    const known = this.profiles.get(this.currentRegion) ?? [];
    if (region !== this.currentRegion && !known.some((profile) => profile.profileId === profileId)) return false;
    this.activeProfile = profileId;
    return true;
  }

  /**
   * Records the profiles a region answered with.
   *
   * @param profiles - the profiles.
   * @param region - the region they came from (the call's route; default: the current region).
   */
  rememberProfiles(profiles: readonly AdsProfile[], region: SelectableAdsRegion = this.currentRegion): void {
    this.profiles.set(region, profiles);
  }
}

/** Every MCP session's {@link AdsSession} of one server (`SessionStates` of core). */
export type AdsSessions = SessionStates<AdsSession>;
