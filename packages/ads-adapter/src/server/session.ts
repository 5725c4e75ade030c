/**
 * The reference server's mutable state: the region, the active profile, the profiles seen per
 * region and one LWA token client per token endpoint. One session serves every MCP client of a
 * server process, as one set of LWA credentials does.
 *
 * @packageDocumentation
 */
import { LwaTokenClient } from '@mcp-envelope/amazon';
import type { SecretRegistry } from '@mcp-envelope/amazon';

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

/** The state of one reference server. */
export class AdsSession {
  readonly settings: AdsServerSettings;
  private currentRegion: SelectableAdsRegion;
  private activeProfile: number | undefined;
  private readonly profiles = new Map<SelectableAdsRegion, readonly AdsProfile[]>();
  private readonly tokenClients = new Map<string, LwaTokenClient>();
  private readonly secrets: SecretRegistry;

  /**
   * @param settings - see {@link AdsServerSettings}.
   * @param secrets - the server's redactor, handed to each LWA client (one per token endpoint).
   */
  constructor(settings: AdsServerSettings, secrets: SecretRegistry) {
    this.settings = settings;
    this.secrets = secrets;
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
    const url = this.tokenUrl();
    let client = this.tokenClients.get(url);
    if (client === undefined) {
      client = new LwaTokenClient({ ...this.settings.lwa, tokenUrl: url }, this.secrets);
      this.tokenClients.set(url, client);
    }
    return client;
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
