/**
 * Contract version 1 beside version 2: how v1 spelled each upstream, the projection of a v2
 * envelope for a reader of v1, the upgrade of a v1 envelope for a reader of v2, and the choice of
 * version for each client. Vendor names appear here only because version 1 named them.
 *
 * @packageDocumentation
 */
import type {
  EnvelopeMeta,
  EnvelopeMetaV1,
  ErrorEnvelope,
  ErrorEnvelopeV1,
  RateLimitMeta,
  RateLimitMetaV1,
} from './envelope.js';
import { deepFrozen } from './frozen.js';
import { isRecord } from './shapes.js';
import { CONTRACT_VERSIONS, UPSTREAM_HTTP_CODE_PREFIX, UPSTREAM_NAME_PATTERN } from './taxonomy.js';
import type { ContractVersion, ErrorKind, ErrorKindV1 } from './taxonomy.js';

/** How contract version 1 spelled failures of one upstream API. */
export interface V1UpstreamSpelling {
  /** The v1 kind of an upstream HTTP failure (`upstream_http` in v2). */
  readonly http_kind: ErrorKindV1;
  /** The v1 kind of a failure outside HTTP (`upstream_client` in v2). */
  readonly client_kind: ErrorKindV1;
  /** The prefix of the v1 upstream HTTP code (`UPSTREAM_HTTP_` in v2). */
  readonly http_code_prefix: string;
}

/**
 * The upstreams contract version 1 knew, by their v2 `upstream` name. A server whose upstreams are
 * all here speaks v1 as well as v2; any other server joined after v1 and speaks v2 only.
 * Implements CONTRACT.md "Upgrading an agent from v1".
 */
export const V1_UPSTREAMS: Readonly<Record<string, V1UpstreamSpelling>> = deepFrozen({
  'sp-api': { http_kind: 'sp_api_http', client_kind: 'sp_api_client', http_code_prefix: 'SP_API_HTTP_' },
  openbridge: { http_kind: 'sp_api_http', client_kind: 'sp_api_client', http_code_prefix: 'OPENBRIDGE_HTTP_' },
  'ads-api': { http_kind: 'ads_api_http', client_kind: 'ads_api_client', http_code_prefix: 'ADS_API_HTTP_' },
} as const);

/** The v1 spelling of one upstream, when v1 had one (an own key only: `__proto__` is no upstream). */
function spellingOf(upstream: unknown): V1UpstreamSpelling | undefined {
  return typeof upstream === 'string' && Object.hasOwn(V1_UPSTREAMS, upstream) ? V1_UPSTREAMS[upstream] : undefined;
}

/**
 * Whether a server with these upstreams can answer readers of contract version 1.
 *
 * @param upstreams - the `upstream` names the server can emit.
 * @returns true when the list is not empty and every name has a v1 spelling in {@link V1_UPSTREAMS}.
 */
export function speaksV1(upstreams: Iterable<string>): boolean {
  const names = [...upstreams];
  return names.length > 0 && names.every((name) => spellingOf(name) !== undefined);
}

/** The contract versions a server with these upstreams answers in, oldest first. */
export function contractVersionsFor(upstreams: Iterable<string>): readonly ContractVersion[] {
  return speaksV1(upstreams) ? CONTRACT_VERSIONS : [2];
}

/** A v2 `rate_limit` reduced to the three closed v1 keys; `undefined` when none is left. */
function rateLimitV1(rateLimit: RateLimitMeta): RateLimitMetaV1 | undefined {
  const kept: { -readonly [Key in keyof RateLimitMetaV1]: RateLimitMetaV1[Key] } = {};
  if (rateLimit.limit_per_second !== undefined) kept.limit_per_second = rateLimit.limit_per_second;
  if (rateLimit.remaining !== undefined) kept.remaining = rateLimit.remaining;
  if (rateLimit.reset_at !== undefined) kept.reset_at = rateLimit.reset_at;
  return Object.keys(kept).length === 0 ? undefined : kept;
}

/**
 * A `_meta` object as a reader of contract version 1 reads it: `rate_limit` keeps only
 * `limit_per_second`, `remaining` and `reset_at`, and is left out when none of them is there.
 *
 * @param meta - a version 2 `_meta` (of an envelope or of a success result).
 * @returns the v1 form; the same object when it has no `rate_limit`.
 */
export function toV1Meta(meta: EnvelopeMeta): EnvelopeMetaV1 {
  const rateLimit = meta.rate_limit;
  if (typeof rateLimit !== 'object' || rateLimit === null) return meta;
  const rest = omitted(meta, ['rate_limit']);
  const reduced = rateLimitV1(rateLimit);
  return reduced === undefined ? rest : { ...rest, rate_limit: reduced };
}

/** A shallow copy of `value` without `keys` (own enumerable keys only, as a spread copies). */
function omitted<Value extends object, Key extends string>(value: Value, keys: readonly Key[]): Omit<Value, Key> {
  return Object.fromEntries(
    Object.entries(value).filter(([name]) => !(keys as readonly string[]).includes(name)),
  ) as Omit<Value, Key>;
}

/** The v1 kind of a v2 kind for an envelope naming `spelling`'s upstream. */
function kindV1(kind: ErrorKind, spelling: V1UpstreamSpelling | undefined): ErrorKindV1 | undefined {
  if (kind === 'upstream_http') return spelling?.http_kind;
  if (kind === 'upstream_client') return spelling?.client_kind;
  return kind;
}

/**
 * The v1 form of a v2 envelope, for a reader of contract version 1: the vendor kind and prefixed
 * code of its upstream (`upstream_http` from `sp-api` -> `sp_api_http`, `UPSTREAM_HTTP_404` ->
 * `SP_API_HTTP_404`), no `upstream`, a v1 `rate_limit`, `_envelope_version: 1`. Its
 * `legacy_error_kind` is left out: a v1 window's value is the emitting server's to add.
 * Implements CONTRACT.md "Upgrading an agent from v1".
 *
 * A `_meta` left empty (only v2 `rate_limit` keys, or empty already) is left out, as version 1
 * servers never sent an empty one.
 *
 * @param envelope - a version 2 envelope.
 * @returns the v1 envelope, or `undefined` when it names an upstream that version 1 did not know
 *   (or an upstream kind or code without any upstream), or when it is no envelope this can read:
 *   not an object, `error_kind` or `error_code` not a string, or `_meta` not an object.
 */
export function toV1Envelope(envelope: ErrorEnvelope): ErrorEnvelopeV1 | undefined {
  if (!readable(envelope) || !(envelope._meta === undefined || isRecord(envelope._meta))) return undefined;
  const { upstream, _meta } = envelope;
  // the fields v1 has unchanged: the nine required ones but the three rewritten below, and extra keys
  const rest = omitted(envelope, ['upstream', 'legacy_error_kind', '_meta']) as Pick<
    ErrorEnvelopeV1,
    'tool' | 'summary' | 'details' | 'hints' | 'examples' | 'retryable'
  >;
  const spelling = spellingOf(upstream);
  const kind = kindV1(envelope.error_kind, spelling);
  if (kind === undefined) return undefined;
  let code = envelope.error_code;
  if (code.startsWith(UPSTREAM_HTTP_CODE_PREFIX)) {
    if (spelling === undefined) return undefined;
    code = spelling.http_code_prefix + code.slice(UPSTREAM_HTTP_CODE_PREFIX.length);
  } else if (upstream !== undefined && spelling === undefined) return undefined;
  const metaV1 = _meta === undefined ? undefined : toV1Meta(_meta);
  return {
    ...rest,
    error_kind: kind,
    error_code: code,
    _envelope_version: 1,
    ...(metaV1 === undefined || Object.keys(metaV1).length === 0 ? {} : { _meta: metaV1 }),
  };
}

/**
 * Whether `value` has the two fields the conversions read as strings. They are client helpers
 * handed whatever arrived, so a malformed value must give their documented `undefined`, not a
 * TypeError from deep inside.
 */
function readable(value: unknown): value is { readonly error_kind: string; readonly error_code: string } {
  return isRecord(value) && typeof value['error_kind'] === 'string' && typeof value['error_code'] === 'string';
}

/** The upstream a v1 envelope's kind and code name, with its spelling. */
function upstreamOfV1(envelope: ErrorEnvelopeV1): readonly [string, V1UpstreamSpelling] | undefined {
  const entries = Object.entries(V1_UPSTREAMS);
  // the code prefix is the finer name (SP's identity service shares SP's kinds); the kind decides otherwise
  return (
    entries.find(([, spelling]) => envelope.error_code.startsWith(spelling.http_code_prefix)) ??
    entries.find(
      ([, spelling]) => spelling.http_kind === envelope.error_kind || spelling.client_kind === envelope.error_kind,
    )
  );
}

/** The v2 kind of a v1 kind: a vendor kind of any upstream becomes its upstream kind. */
function kindV2(kind: ErrorKindV1): ErrorKind {
  const spellings = Object.values(V1_UPSTREAMS);
  if (spellings.some((spelling) => spelling.http_kind === kind)) return 'upstream_http';
  if (spellings.some((spelling) => spelling.client_kind === kind)) return 'upstream_client';
  // the six kinds v1 and v2 share, or a kind of a later release, which a reader passes on as is
  return kind as ErrorKind;
}

/**
 * The v2 form of a v1 envelope, for a reader that handles version 2 only: vendor kinds become
 * `upstream_http`/`upstream_client` with the upstream named in `upstream`, prefixed codes become
 * `UPSTREAM_HTTP_<status>`; `legacy_error_kind` and `_meta` are kept (v1 kinds are valid legacy
 * values in v2, and a v1 `_meta` is a valid v2 one); other keys are passed on as they are.
 * Implements CONTRACT.md "Upgrading an agent from v1".
 *
 * Version 1 did not reserve the `UPSTREAM_HTTP_` prefix, but version 2 requires an `upstream` with
 * it; and an extra `upstream` key, which version 1 ignored, must be a valid name in version 2.
 * When the result would break either rule, there is no honest version 2 form, and the answer is
 * `undefined`: every schema-valid v1 envelope gives a schema-valid v2 envelope or `undefined`.
 *
 * @param envelope - a version 1 envelope.
 * @returns the version 2 envelope; `undefined` when it cannot be a valid one (an `UPSTREAM_HTTP_`
 *   code with no vendor kind or code naming the upstream, or an extra `upstream` key that is no
 *   valid name), or when the input is no envelope this can read (not an object, `error_kind` or
 *   `error_code` not a string).
 */
export function upgradeEnvelope(envelope: ErrorEnvelopeV1): ErrorEnvelope | undefined {
  if (!readable(envelope)) return undefined;
  const named = upstreamOfV1(envelope);
  const spelling = named?.[1];
  const kind = kindV2(envelope.error_kind);
  const prefixed = spelling !== undefined && envelope.error_code.startsWith(spelling.http_code_prefix);
  const code = prefixed
    ? UPSTREAM_HTTP_CODE_PREFIX + envelope.error_code.slice(spelling.http_code_prefix.length)
    : envelope.error_code;
  const involvesUpstream = prefixed || kind === 'upstream_http' || kind === 'upstream_client';
  const { _meta, ...rest } = envelope;
  const upgraded: ErrorEnvelope = {
    ...rest,
    // every v1 `_meta` is a valid v2 one (the v2 `rate_limit` is open)
    ...(_meta === undefined ? {} : { _meta: _meta as EnvelopeMeta }),
    error_kind: kind,
    error_code: code,
    _envelope_version: 2,
    ...(involvesUpstream && named !== undefined ? { upstream: named[0] } : {}),
  };
  return namesUpstreamAsV2Requires(upgraded) ? upgraded : undefined;
}

/** Whether an upgraded envelope meets the v2 schema's `upstream` rules (the one thing an upgrade can break). */
function namesUpstreamAsV2Requires(envelope: ErrorEnvelope): boolean {
  const upstream: unknown = envelope.upstream;
  if (upstream !== undefined) return typeof upstream === 'string' && UPSTREAM_NAME_PATTERN.test(upstream);
  const needsUpstream = envelope.error_kind === 'upstream_http' || envelope.error_kind === 'upstream_client';
  return !needsUpstream && !envelope.error_code.startsWith(UPSTREAM_HTTP_CODE_PREFIX);
}

/**
 * The contract versions a client stated it reads (`{ contract_versions: [1, 2] }`, the value of
 * the request `_meta` key or of the client capability), or `undefined` when it stated none.
 *
 * @param stated - the raw value the client sent, of any shape.
 * @returns the integers it listed that are contract versions, possibly none.
 */
export function statedContractVersions(stated: unknown): readonly ContractVersion[] | undefined {
  if (typeof stated !== 'object' || stated === null) return undefined;
  const list: unknown = (stated as Record<string, unknown>)['contract_versions'];
  if (!Array.isArray(list)) return undefined;
  return CONTRACT_VERSIONS.filter((version) => list.includes(version));
}

/**
 * The version a server answers a client in: the highest version both know; the server's oldest
 * when the client stated none or none in common (a reader of v1 states nothing). Implements
 * CONTRACT.md "Versioning".
 *
 * @param stated - the versions the client reads (see {@link statedContractVersions}), or `undefined`.
 * @param spoken - the versions the server answers in, oldest first (not empty).
 * @returns the version to answer in.
 */
export function negotiateContractVersion(
  stated: readonly ContractVersion[] | undefined,
  spoken: readonly ContractVersion[],
): ContractVersion {
  const common = spoken.filter((version) => stated?.includes(version) === true);
  return common.at(-1) ?? spoken[0] ?? 2;
}
