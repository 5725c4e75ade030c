/**
 * The reference server's mutable state. What an MCP session chose (its region, its active profile,
 * the profiles it has seen per region) belongs to that session, so two clients of one Streamable
 * HTTP server never call with each other's profile; the LWA token clients (one per token
 * endpoint, for the server's one set of credentials) are shared by every session.
 *
 * @packageDocumentation
 */
import type { LwaTokenClient, LwaTokenClients } from '@mcp-envelope/amazon';
import type { SessionStates } from '@mcp-envelope/core';

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

  /** The base URL calls go to: `--upstream` when set, else the region's host. */
  baseUrl(): string {
    return this.settings.upstream ?? ADS_REGIONS[this.currentRegion].host;
  }

  /** The LWA token endpoint: `LWA_TOKEN_URL` when set, else the region's. */
  tokenUrl(): string {
    return this.settings.lwa.tokenUrl ?? ADS_REGIONS[this.currentRegion].tokenUrl;
  }

  /** `LWA_CLIENT_ID`, sent as the client id header; `''` when unset (the token call fails first). */
  clientId(): string {
    return (this.settings.lwa.clientId ?? '').trim();
  }

  /** The `Amazon-Ads-AccountId` for unified v1 calls: `ADS_API_ACCOUNT_ID`, else the active profile id. */
  accountId(): string | undefined {
    return this.settings.accountId ?? (this.activeProfile === undefined ? undefined : String(this.activeProfile));
  }

  private tokenClient(): LwaTokenClient {
    const tokenUrl = this.tokenUrl();
    return this.tokens.client(tokenUrl, { tokenUrl });
  }

  /**
   * An access token for the current region.
   *
   * @param signal - aborts a token request this call starts (the server's warm-up passes one).
   * @returns the token.
   * @throws EnvelopeError (`auth_error` / `AUTHENTICATION_ERROR`) naming missing variables or the
   *   LWA rejection.
   */
  accessToken(signal?: AbortSignal): Promise<string> {
    // An LwaError escapes to core, which hands it to the adapter as an `lwa` failure.
    return this.tokenClient().accessToken(signal);
  }

  /** Forgets the cached access token (after the Ads API answered 401 with it). */
  invalidateToken(): void {
    this.tokenClient().invalidate();
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

  /** Makes `profileId` the active profile (validation is the caller's). */
  setProfile(profileId: number): void {
    this.activeProfile = profileId;
  }

  /** Records the profiles the current region answered with. */
  rememberProfiles(profiles: readonly AdsProfile[]): void {
    this.profiles.set(this.currentRegion, profiles);
  }
}

/** Every MCP session's {@link AdsSession} of one server (`SessionStates` of core). */
export type AdsSessions = SessionStates<AdsSession>;
