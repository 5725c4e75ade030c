/**
 * The gate's parity section: the same condition gives the same version 2 kind, code and envelope
 * shape on every gated server that takes part in it (each pair of servers is compared on the
 * conditions they share). `upstream` names each server's own API, so only its presence is
 * compared; `legacy_error_kind` belongs to each server's migration windows and is left aside.
 *
 * @packageDocumentation
 */
import { isDeepStrictEqual } from 'node:util';

import { isRecord } from '@mcp-envelope/contract';
import type { GeneratedFixture } from './fixtures.js';
import type { FixtureScenario } from './fixture-plan.js';
import type { GateRow } from './gate-report.js';

/** An envelope's keys without `legacy_error_kind` (a migration window is per server), sorted. */
function contractKeys(envelope: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(envelope)
    .filter((key) => key !== 'legacy_error_kind')
    .sort();
}

/**
 * The shape of an envelope compared across servers: its keys (`legacy_error_kind` aside), its
 * `_meta` keys, and each detail's keys.
 *
 * @param envelope - an envelope of any version.
 * @returns one line, e.g. `keys[_envelope_version,error_code,...] _meta[] details[code+message+path]`.
 */
export function envelopeShape(envelope: Readonly<Record<string, unknown>>): string {
  const meta = isRecord(envelope['_meta']) ? Object.keys(envelope['_meta']).sort() : [];
  const details = Array.isArray(envelope['details'])
    ? envelope['details'].map((detail) => (isRecord(detail) ? Object.keys(detail).sort().join('+') : typeof detail))
    : [];
  return `keys[${contractKeys(envelope).join(',')}] _meta[${meta.join(',')}] details[${details.join(' ')}]`;
}

/**
 * What parity compares of an envelope: the version 2 kind and code as they are (they name no
 * server), `retryable`, and whether an upstream is named (its value is each server's own API).
 *
 * @param envelope - a version 2 envelope.
 * @returns e.g. `upstream_http/UPSTREAM_HTTP_503 retryable=true upstream=named`.
 */
export function parityLabel(envelope: Readonly<Record<string, unknown>>): string {
  const upstream = typeof envelope['upstream'] === 'string' ? 'named' : 'none';
  return `${String(envelope['error_kind'])}/${String(envelope['error_code'])} retryable=${String(envelope['retryable'])} upstream=${upstream}`;
}

/**
 * The `_meta` keys a server decides, sorted: `rate_limit` and `warnings` echo what the upstream's
 * headers said in that recorded answer, which differs per API, not per server.
 */
function serverMetaKeys(envelope: Readonly<Record<string, unknown>>): string[] {
  const meta = envelope['_meta'];
  if (!isRecord(meta)) return [];
  return Object.keys(meta)
    .filter((key) => key !== 'rate_limit' && key !== 'warnings')
    .sort();
}

/** Conditions whose envelopes come from the same code in core on every server: the whole shape and the details must match. */
function comparesDetails(parity: string): boolean {
  return (
    parity.startsWith('input validation') ||
    parity === 'unknown tool' ||
    parity === 'internal error' ||
    parity === 'unknown field (strict)'
  );
}

/** What differs between the first server's envelope and another's for one parity condition. */
function parityNotes(
  parity: string,
  first: { server: string; envelope: Record<string, unknown> },
  other: { server: string; envelope: Record<string, unknown> },
): string[] {
  const notes: string[] = [];
  const [a, b] = [first.envelope, other.envelope];
  if (parityLabel(a) !== parityLabel(b))
    notes.push(`${first.server} ${parityLabel(a)} but ${other.server} ${parityLabel(b)}`);
  if (comparesDetails(parity)) {
    const shapes = [envelopeShape(a), envelopeShape(b)];
    if (shapes[0] !== shapes[1])
      notes.push(`shapes differ: ${first.server} ${shapes[0] ?? ''} / ${other.server} ${shapes[1] ?? ''}`);
    if (!isDeepStrictEqual(a['details'], b['details'])) notes.push('details differ');
  } else {
    const top = (envelope: Record<string, unknown>): string =>
      // `_meta` itself is compared by the keys the server decides in it, so one holding only echoed headers counts as none
      `${contractKeys(envelope)
        .filter((key) => key !== '_meta')
        .join(',')} _meta[${serverMetaKeys(envelope).join(',')}]`;
    if (top(a) !== top(b)) notes.push(`envelope keys differ: ${first.server} ${top(a)} / ${other.server} ${top(b)}`);
  }
  return notes;
}

function parityRow(
  servers: readonly string[],
  parity: string,
  expected: string,
  got: string,
  notes: readonly string[],
  start: number,
): GateRow {
  return {
    section: 'parity',
    server: servers.join('|'),
    check: parity,
    expected,
    got,
    result: notes.length === 0 ? 'PASS' : 'FAIL',
    note: notes.join('; '),
    duration_ms: Math.round(performance.now() - start),
  };
}

/** The scenarios of the generated fixtures that name a parity condition, in the order they ran. */
function parityScenarios(fixtures: readonly GeneratedFixture[]): FixtureScenario[] {
  const scenarios = new Map<string, FixtureScenario>();
  for (const { scenario } of fixtures) if (scenario.parity !== undefined) scenarios.set(scenario.id, scenario);
  return [...scenarios.values()];
}

/**
 * One row per parity condition that at least two servers take part in: each of those servers'
 * version 2 envelope compared with the first one's (equality, so every pair agrees when each
 * agrees with the first).
 *
 * @param fixtures - the fixtures generated from the running servers (those of version 2 are compared).
 * @returns the parity rows, in plan order.
 */
export function parityRows(fixtures: readonly GeneratedFixture[]): GateRow[] {
  const rows: GateRow[] = [];
  for (const scenario of parityScenarios(fixtures)) {
    const parity = scenario.parity ?? scenario.id;
    const start = performance.now();
    const found = fixtures
      .filter((fixture) => fixture.scenario.id === scenario.id && fixture.version === 2)
      .map((fixture) => ({ server: fixture.server, envelope: fixture.payload }));
    if (found.length < 2) continue;
    const servers = found.map((entry) => entry.server);
    const envelopes = found.filter((entry): entry is { server: string; envelope: Record<string, unknown> } =>
      isRecord(entry.envelope),
    );
    const [first, ...others] = envelopes;
    if (first === undefined || envelopes.length !== found.length) {
      const why = 'a server gave no envelope for this condition (see the fixture rows)';
      rows.push(parityRow(servers, parity, 'an envelope on every server', 'missing', [why], start));
      continue;
    }
    const notes = others.flatMap((other) => parityNotes(parity, first, other));
    const actual = others.map((other) => `${other.server} ${parityLabel(other.envelope)}`).join('; ');
    rows.push(parityRow(servers, parity, `${first.server} ${parityLabel(first.envelope)}`, actual, notes, start));
  }
  return rows;
}
