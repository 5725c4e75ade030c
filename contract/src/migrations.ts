/**
 * The migrations table: every reclassification of an error from one `error_kind` to another,
 * with the one-release window during which envelopes carry the old value as `legacy_error_kind`.
 *
 * @packageDocumentation
 */
import { deepFrozen } from './frozen.js';
import SemVer from 'semver/classes/semver.js';

import { migrationsDocument } from './data/migrations-table.js';

import type { ErrorEnvelope, ErrorEnvelopeV1 } from './envelope.js';
import type { ContractVersion, ErrorKind, ErrorKindV1 } from './taxonomy.js';
import { toV1Envelope } from './v1.js';

/**
 * One reclassification. Implements CONTRACT.md "Migration windows": the first release that ships
 * the entry emits `to_kind` with `legacy_error_kind: from_kind`; the next release, whatever its
 * number, drops `legacy_error_kind`, and the entry must then have left the table (the release
 * check reads which releases happened from the git tags).
 */
export interface MigrationEntry {
  /** A stable slug, e.g. `upstream-429-to-rate-limited`. */
  readonly id: string;
  /** The `error_code` values (as emitted after the change) that this entry covers; absent: every code of `to_kind`. */
  readonly error_codes?: readonly string[];
  /**
   * The servers it applies to (`sp`, `ads`, ...), always named: a server that joins the family
   * later never carries a legacy value for a window that predates it.
   */
  readonly servers: readonly string[];
  /**
   * The envelope version the entry applies to (default 1): a version 1 entry moves a v1 kind to
   * another v1 kind and shows in v1 envelopes only; a version 2 entry moves a v1 kind to its v2
   * kind and shows in v2 envelopes only.
   */
  readonly contract_version?: ContractVersion;
  /**
   * The conditions it covers, when a code is shared by conditions that had different kinds
   * before: `upstream_http` is an adapter's verdict on the HTTP answer of the upstream API the
   * server fronts (not a pre-flight limiter refusal, not an internal service such as an identity
   * service). An envelope covered by such an entry must name its condition (see
   * {@link coveringMigration}); absent means every envelope with a covered code.
   */
  readonly conditions?: readonly string[];
  /** The kind these codes had before. */
  readonly from_kind: ErrorKind | ErrorKindV1;
  /** The kind they have now. */
  readonly to_kind: ErrorKind | ErrorKindV1;
  /** The lowest version (semver `MAJOR.MINOR.PATCH`) that emits `to_kind` and the legacy value. */
  readonly introduced_in: string;
  /**
   * The date (`YYYY-MM-DD`) from which clients must not rely on `legacy_error_kind`: the release
   * after the one that opens the window ships no earlier. Each affected server's CHANGELOG names it.
   */
  readonly cutover_date?: string;
  /**
   * Optional upper bound: a version from which `legacy_error_kind` is not sent even if the entry
   * were still here. Without it the window ends with the entry, which the release check removes
   * from the release after the one that shipped it.
   */
  readonly removed_in?: string;
}

/**
 * The reclassifications in force, from `migrations.json` at the package root (data, so the
 * release check can read any checkout's table without compiling it; the build embeds it). The first release of this
 * project introduces the contract's three phased reclassifications: the release that first ships
 * them emits `legacy_error_kind`, and the next one drops it, with the entries deleted.
 */
export const MIGRATIONS: readonly MigrationEntry[] = deepFrozen(
  (migrationsDocument as { migrations: MigrationEntry[] }).migrations,
);

function parseVersion(version: string): SemVer {
  const trimmed = version.trim();
  // built only when thrown: an error captures a stack trace, which costs more than the parse
  const invalid = (): RangeError => new RangeError(`"${version}" is not a MAJOR.MINOR.PATCH version`);
  // semver also reads `v1.2.3` and `=1.2.3`; versions here are written as bare numbers
  if (!/^\d/.test(trimmed)) throw invalid();
  try {
    return new SemVer(trimmed);
  } catch {
    throw invalid();
  }
}

/**
 * Compares two `MAJOR.MINOR.PATCH` versions with `semver` (pre-release and build suffixes are
 * ignored).
 *
 * @returns a negative number, zero or a positive number as `a` is lower than, equal to or higher than `b`.
 * @throws RangeError when either string is not a semver version.
 */
export function compareVersions(a: string, b: string): number {
  return parseVersion(a).compareMain(parseVersion(b));
}

/**
 * The entries whose window is open at `version`: `introduced_in <= version`, and
 * `version < removed_in` when the entry has a `removed_in`.
 *
 * @param version - the release being run or built, e.g. the package's own version.
 * @param table - the table to read; defaults to {@link MIGRATIONS}.
 * @returns the open entries, in table order.
 * @throws RangeError when a version string is malformed.
 */
export function activeMigrations(
  version: string,
  table: readonly MigrationEntry[] = MIGRATIONS,
): readonly MigrationEntry[] {
  return table.filter((entry) => isMigrationOpen(entry, version));
}

/**
 * Whether one entry's window is open at `version`: `introduced_in <= version`, and
 * `version < removed_in` when the entry has a `removed_in`. Reads only those two fields, so the
 * release check can ask it of a table it has not validated.
 *
 * @param entry - the entry's `introduced_in` and optional `removed_in`.
 * @param version - the release being run, built or checked.
 * @returns whether the window is open.
 * @throws RangeError when a version string is malformed.
 */
export function isMigrationOpen(entry: Pick<MigrationEntry, 'introduced_in' | 'removed_in'>, version: string): boolean {
  return (
    compareVersions(entry.introduced_in, version) <= 0 &&
    (entry.removed_in === undefined || compareVersions(version, entry.removed_in) < 0)
  );
}

/** The `error_code` and `error_kind` being emitted, and the condition that gave them, when known. */
export interface MigrationSubject {
  /** The envelope's `error_code`. */
  readonly error_code: string;
  /** The envelope's `error_kind` (matched against an entry's `to_kind`). */
  readonly error_kind: ErrorKind | ErrorKindV1;
  /**
   * The envelope's `_envelope_version`, matched against an entry's `contract_version` (default 1);
   * absent: 2, the version servers build envelopes in.
   */
  readonly version?: ContractVersion | undefined;
  /**
   * The condition behind the envelope (`upstream_http` for an adapter's verdict on the fronted
   * API's HTTP answer); an entry with `conditions` covers only the envelopes that name one of them.
   */
  readonly condition?: string | undefined;
}

/**
 * The entry of `entries` that covers an envelope's code, kind and condition on `server`, whatever
 * the entries' versions: for a server that selected its open entries once with {@link activeMigrations}.
 * An entry without `servers` covers no server, as the release check reads it.
 *
 * @param envelope - the `error_code`, `error_kind` and condition being emitted.
 * @param server - the emitting server's id (`sp`, `ads`, ...).
 * @param entries - the entries to search, e.g. the open ones.
 * @returns the first covering entry, in table order; else `undefined`.
 */
export function coveringMigration(
  envelope: MigrationSubject,
  server: string,
  entries: readonly MigrationEntry[],
): MigrationEntry | undefined {
  return entries.find(
    (candidate) =>
      candidate.to_kind === envelope.error_kind &&
      (candidate.contract_version ?? 1) === (envelope.version ?? 2) &&
      (candidate.error_codes === undefined || candidate.error_codes.includes(envelope.error_code)) &&
      // read defensively: an entry without `servers` (a JS table, or one from before they were required) covers none
      (candidate.servers as readonly string[] | undefined)?.includes(server) === true &&
      (candidate.conditions === undefined ||
        (envelope.condition !== undefined && candidate.conditions.includes(envelope.condition))),
  );
}

/**
 * The `legacy_error_kind` an envelope must carry, if any.
 *
 * @param envelope - the `error_code`, `error_kind` and condition being emitted.
 * @param server - the emitting server's id (`sp`, `ads`, ...).
 * @param version - the emitting release's version.
 * @param table - defaults to {@link MIGRATIONS}.
 * @returns the prior kind when an open entry covers this code, kind, condition and server; else `undefined`.
 * @throws RangeError when a version string is malformed.
 */
export function legacyErrorKindFor(
  envelope: MigrationSubject,
  server: string,
  version: string,
  table: readonly MigrationEntry[] = MIGRATIONS,
): ErrorKind | ErrorKindV1 | undefined {
  return coveringMigration(envelope, server, activeMigrations(version, table))?.from_kind;
}

/**
 * The entries that have expired at `version` by their `removed_in` (`removed_in <= version`) and
 * so must be deleted before that release ships. Entries without `removed_in` expire by release
 * history instead, which only the release check knows.
 *
 * @returns the expired entries, in table order.
 * @throws RangeError when a version string is malformed.
 */
export function expiredMigrations(
  version: string,
  table: readonly MigrationEntry[] = MIGRATIONS,
): readonly MigrationEntry[] {
  return table.filter((entry) => entry.removed_in !== undefined && compareVersions(entry.removed_in, version) <= 0);
}

/** What the version 1 form of one server's envelopes depends on besides the envelope. */
export interface V1FormServer {
  /** The server's id in the migrations table (`sp`, `ads`, ...). */
  readonly serverId: string;
  /** The API the server fronts (its first upstream): only a verdict on its answer is the `upstream_http` condition. */
  readonly primaryUpstream: string | undefined;
  /** The migrations open in the server's release (see `activeMigrations`). */
  readonly openMigrations: readonly MigrationEntry[];
}

/**
 * The envelope a reader of contract version 1 gets from a server: {@link toV1Envelope} plus the
 * `legacy_error_kind` of an open version 1 window. The window's condition `upstream_http` holds
 * when the envelope names the server's primary upstream, so a limiter refusal (no upstream) or an
 * internal service (another upstream) never gets the fronted API's legacy kind. Implements
 * CONTRACT.md "Versioning" and "Migration windows".
 *
 * @param envelope - a version 2 envelope the server built.
 * @param server - see {@link V1FormServer}.
 * @returns the version 1 envelope, or `undefined` when version 1 cannot express it.
 */
export function toV1EnvelopeOfServer(envelope: ErrorEnvelope, server: V1FormServer): ErrorEnvelopeV1 | undefined {
  const projected = toV1Envelope(envelope);
  if (projected === undefined) return undefined;
  const fromPrimary = envelope.upstream !== undefined && envelope.upstream === server.primaryUpstream;
  const subject = {
    error_code: projected.error_code,
    error_kind: projected.error_kind,
    version: 1 as const,
    condition: fromPrimary ? 'upstream_http' : undefined,
  };
  // version 1 entries move version 1 kinds only
  const legacy = coveringMigration(subject, server.serverId, server.openMigrations)?.from_kind as
    ErrorKindV1 | undefined;
  return legacy === undefined ? projected : { ...projected, legacy_error_kind: legacy };
}
