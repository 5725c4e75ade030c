/**
 * Loads the recorded upstream responses in `test/fixtures/upstream` (one JSON file per scenario).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One recorded Ads API answer and what the server must make of it. */
export interface UpstreamFixture {
  readonly id: string;
  readonly about: string;
  /** The reference-server tool whose request this answers, and its arguments. */
  readonly call: { readonly tool: string; readonly arguments: Record<string, unknown> };
  readonly request: { readonly method: string; readonly path: string };
  readonly response: { readonly status: number; readonly headers: Record<string, string>; readonly body: unknown };
  /** What a reader of contract version 2 gets (the version the server builds envelopes in). */
  readonly expected: {
    readonly error_kind: string | null;
    readonly error_code: string | null;
    /** The upstream API that answered (`ads-api`), on every error case. */
    readonly upstream?: string;
    /** The adapter's verdict; over the wire see `effect_unknown`. */
    readonly retryable: boolean | null;
    /**
     * Whether the server, after the adapter, answers the effect-unknown form (a 500, 502 or 504 of
     * a tool that is not idempotent; CONTRACT.md "Safe retries"): not retryable, its detail first
     * and its hint first, before `details` and the hints of `hints_contain`.
     */
    readonly effect_unknown?: boolean;
    /** The prior kind while the migrations table has an open v2 window for this kind (core adds it). */
    readonly legacy_error_kind?: string;
    readonly details?: readonly Record<string, unknown>[];
    /** Each string must occur in at least one hint. */
    readonly hints_contain?: readonly string[];
    /** The exact `_meta` (without `normalized`); absent means no `_meta` at all. */
    readonly meta?: Record<string, unknown>;
    /** For successes: the exact result object without `_meta`. */
    readonly result?: Record<string, unknown>;
  };
  /** What a reader of contract version 1 gets: the v1 kind and code, its v1 window's legacy kind, the v1 `_meta`. */
  readonly expected_v1: {
    readonly error_kind: string | null;
    readonly error_code: string | null;
    readonly legacy_error_kind?: string;
    /** Absent means no `_meta` at all. */
    readonly meta?: Record<string, unknown>;
  };
}

const directory = fileURLToPath(new URL('../fixtures/upstream/', import.meta.url));

/** Every fixture, in file-name order. */
export const UPSTREAM_FIXTURES: readonly UpstreamFixture[] = readdirSync(directory)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => JSON.parse(readFileSync(`${directory}${name}`, 'utf8')) as UpstreamFixture);

/** The base URL the unit tests pretend every fixture was requested from. */
export const FIXTURE_HOST = 'https://advertising-api.amazon.com';
