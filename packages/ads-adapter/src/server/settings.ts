/**
 * The reference server's settings, read once at start-up from the environment and the command
 * line. The package README documents each setting.
 *
 * @packageDocumentation
 */
import { lwaSettingsFromEnv } from '@mcp-envelope/amazon';
import type { LwaSettings } from '@mcp-envelope/amazon';

import { DEFAULT_ADS_REGION } from '../hint-tables.js';

/** The regions a user can choose (`ADS_API_REGION`, `set_region`); the sandbox is reached with `--upstream`. */
export const SELECTABLE_ADS_REGIONS = Object.freeze(['na', 'eu', 'fe'] as const);

/** One selectable region. */
export type SelectableAdsRegion = (typeof SELECTABLE_ADS_REGIONS)[number];

/** How long one upstream request may take before it is abandoned, in milliseconds. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;

/** Everything the reference server is configured with. */
export interface AdsServerSettings {
  /** `ADS_API_REGION` (`na`/`eu`/`fe`, default `na`): the starting region. */
  readonly region: SelectableAdsRegion;
  /** `ADS_API_PROFILE_ID`: the starting active profile (sent as `Amazon-Advertising-API-Scope`). */
  readonly profileId?: number;
  /** `ADS_API_ACCOUNT_ID`: sent as `Amazon-Ads-AccountId` to the unified v1 APIs (default: the active profile id). */
  readonly accountId?: string;
  /** `--upstream URL`: one base URL for every region (a local replay server, the sandbox host). */
  readonly upstream?: string;
  /** `LWA_CLIENT_ID`, `LWA_CLIENT_SECRET`, `LWA_REFRESH_TOKEN`, `LWA_TOKEN_URL`. */
  readonly lwa: LwaSettings;
  /** Upstream request timeout in milliseconds. */
  readonly timeoutMs: number;
}

/** Command-line values that override or complete the environment. */
export interface AdsCommandLineSettings {
  /**
   * `--upstream`, as core's `upstreamFromCommandLine` gives it: checked, trimmed, without
   * trailing slashes. Taken as it is.
   */
  readonly upstream?: string | undefined;
  readonly timeoutMs?: number | undefined;
}

/**
 * Reads {@link AdsServerSettings}.
 *
 * @param env - the environment (defaults to `process.env` at the call site).
 * @param commandLine - `--upstream` and the like.
 * @returns the settings.
 * @throws TypeError naming the variable when `ADS_API_REGION` is not `na`/`eu`/`fe`, or when
 *   `ADS_API_PROFILE_ID` is not a positive integer.
 * @throws LwaSettingsError when `LWA_TOKEN_URL` is set but is not an absolute http(s) URL, or
 *   carries user info, a query string, a fragment or a blank (the message does not quote the value).
 */
export function adsServerSettings(
  env: Readonly<Record<string, string | undefined>>,
  commandLine: AdsCommandLineSettings = {},
): AdsServerSettings {
  const regionText = (env['ADS_API_REGION'] ?? '').trim().toLowerCase();
  if (regionText !== '' && !(SELECTABLE_ADS_REGIONS as readonly string[]).includes(regionText)) {
    // the value is not quoted: a pasted secret in the wrong variable must not reach a log
    throw new TypeError(`ADS_API_REGION must be one of ${SELECTABLE_ADS_REGIONS.join(', ')}`);
  }
  const region = (regionText === '' ? DEFAULT_ADS_REGION : regionText) as SelectableAdsRegion;
  const profileText = (env['ADS_API_PROFILE_ID'] ?? '').trim();
  if (profileText !== '' && !/^[1-9]\d{0,15}$/.test(profileText)) {
    throw new TypeError('ADS_API_PROFILE_ID must be a profile id (a positive integer, as list_profiles returns it)');
  }
  const accountId = (env['ADS_API_ACCOUNT_ID'] ?? '').trim();
  return {
    region,
    ...(profileText === '' ? {} : { profileId: Number(profileText) }),
    ...(accountId === '' ? {} : { accountId }),
    ...(commandLine.upstream === undefined ? {} : { upstream: commandLine.upstream }),
    lwa: lwaSettingsFromEnv(env),
    timeoutMs: commandLine.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
  };
}
