/**
 * The checked-in fixtures must be exactly what the reference servers emit now: regenerate them
 * into a temporary folder from the real servers and compare every file, so a stale fixture cannot
 * land. (`pnpm fixtures:update` rewrites them.)
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { validateEnvelope } from '@mcp-envelope/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { gateCases } from '../../src/gate/cases.js';
import { startGateEnvironment } from '../../src/gate/environment.js';
import type { GateEnvironment } from '../../src/gate/environment.js';
import { fixtureFile, generateFixtures, writeFixtures } from '../../src/gate/fixtures.js';
import type { GeneratedFixture } from '../../src/gate/fixtures.js';
import { isRecord } from '@mcp-envelope/contract';

const packageRoot = join(import.meta.dirname, '..', '..');
const checkedIn = join(packageRoot, 'fixtures');
const regenerated = mkdtempSync(join(tmpdir(), 'fixtures-fresh-'));
let environment: GateEnvironment;
let fixtures: GeneratedFixture[];

function files(folder: string): string[] {
  // every gated server's fixtures, and the version 1 twins of those that speak version 1
  return ['sp', 'ads', 'github', 'v1/sp', 'v1/ads']
    .flatMap((server) => readdirSync(join(folder, server)).map((name) => `${server}/${name}`))
    .sort();
}

beforeAll(async () => {
  environment = await startGateEnvironment();
  const cases = gateCases(environment.servers);
  fixtures = await generateFixtures(environment, new Map(cases.map((entry) => [entry.id, entry])));
  writeFixtures(regenerated, fixtures);
}, 120_000);

afterAll(async () => {
  await environment.close();
});

describe('conformance/fixtures', () => {
  it('every scenario gave the outcome it asks for', () => {
    expect(
      fixtures
        .filter((fixture) => fixture.problems.length > 0)
        .map((fixture) => `${fixture.server}/${fixture.scenario.id}: ${fixture.problems.join('; ')}`),
    ).toEqual([]);
  });

  it('the same files exist, with the same bytes, as a fresh generation', () => {
    expect(files(checkedIn)).toEqual(files(regenerated));
    const stale = files(regenerated).filter(
      (file) => readFileSync(join(checkedIn, file), 'utf8') !== readFileSync(join(regenerated, file), 'utf8'),
    );
    expect(stale, 'stale fixtures: run pnpm fixtures:update and review the diff').toEqual([]);
  });

  it('generation is deterministic: a second run gives the same bytes', async () => {
    const cases = gateCases(environment.servers);
    const again = mkdtempSync(join(tmpdir(), 'fixtures-again-'));
    writeFixtures(again, await generateFixtures(environment, new Map(cases.map((entry) => [entry.id, entry]))));
    expect(
      files(again).filter(
        (file) => readFileSync(join(again, file), 'utf8') !== readFileSync(join(regenerated, file), 'utf8'),
      ),
    ).toEqual([]);
  });

  it('covers every error kind each server advertises, every SCHEMA_* keyword code and the fallback, and every normalization kind', async () => {
    for (const server of ['sp', 'ads'] as const) {
      const session = await environment.session(server, 'main');
      const byVersion = (
        session.client.getServerCapabilities()?.experimental?.['openbridge_envelope'] as {
          error_kinds_by_version: Record<string, string[]>;
        }
      ).error_kinds_by_version;
      for (const version of [1, 2] as const) {
        const kinds = new Set(
          fixtures
            .filter((fixture) => fixture.server === server && fixture.version === version)
            .flatMap((fixture) =>
              'envelope' in fixture.document
                ? [(fixture.document['envelope'] as { error_kind: string }).error_kind]
                : [],
            ),
        );
        expect([server, version, [...kinds].sort()]).toEqual([
          server,
          version,
          [...(byVersion[String(version)] ?? [])].sort(),
        ]);
      }
      const mine = fixtures.filter((fixture) => fixture.server === server && fixture.version === 2);
      const codes = new Set(
        mine.flatMap((fixture) =>
          'envelope' in fixture.document ? [(fixture.document['envelope'] as { error_code: string }).error_code] : [],
        ),
      );
      for (const code of [
        'SCHEMA_TYPE_MISMATCH',
        'SCHEMA_REQUIRED',
        'SCHEMA_MAX_ITEMS',
        'SCHEMA_MIN_ITEMS',
        'SCHEMA_MAX_LENGTH',
        'SCHEMA_MIN_LENGTH',
        'SCHEMA_MAXIMUM',
        'SCHEMA_MINIMUM',
        'SCHEMA_ENUM_MISMATCH',
        'SCHEMA_PATTERN_MISMATCH',
        'SCHEMA_FORMAT_INVALID',
        'SCHEMA_ADDITIONAL_PROPERTIES',
        'SCHEMA_ONE_OF_FAILED',
        'SCHEMA_ANY_OF_FAILED',
        'SCHEMA_ALL_OF_FAILED',
        'SCHEMA_UNIQUE_ITEMS',
        'SCHEMA_CONST_MISMATCH',
        'SCHEMA_MULTIPLE_OF',
        'SCHEMA_VALIDATION_FAILED',
      ]) {
        expect(codes.has(code), `${server} ${code}`).toBe(true);
      }
      const events = new Set(
        mine.flatMap(
          (fixture) =>
            JSON.stringify(fixture.payload).match(
              /"kind":"(renamed|dropped_alias|coerced|unknown_field_passed_through|unknown_field_rejected)"/g,
            ) ?? [],
        ),
      );
      expect(events.size).toBe(5);
    }
  });

  it("every envelope fixture is a valid envelope of its version, and the v1 set keeps the v1 windows' legacy kinds", () => {
    for (const fixture of fixtures)
      if ('envelope' in fixture.document)
        expect([fixtureFile(fixture), validateEnvelope(fixture.document['envelope'])]).toEqual([
          fixtureFile(fixture),
          { valid: true, version: fixture.version },
        ]);
    const legacy = fixtures
      .filter((fixture) => isRecord(fixture.payload) && fixture.payload['legacy_error_kind'] !== undefined)
      .map((fixture) => {
        const envelope = fixture.payload as Record<string, unknown>;
        return `${fixtureFile(fixture)} ${String(envelope['error_code'])} ${String(envelope['legacy_error_kind'])}`;
      })
      .sort();
    // the v2 windows (contract/migrations.json) give the v2 upstream envelopes of SP and Ads their v1 kind
    expect(legacy).toEqual([
      'ads/api-client-network.json TOOL_EXECUTION_FAILED ads_api_client',
      'ads/api-http-400.json UPSTREAM_HTTP_400 ads_api_http',
      'ads/api-http-404.json UPSTREAM_HTTP_404 ads_api_http',
      'ads/api-http-503.json UPSTREAM_HTTP_503 ads_api_http',
      'ads/profile-scope-warning.json UPSTREAM_HTTP_400 ads_api_http',
      'sp/api-client-body-coercion.json BODY_COERCION_INVALID_JSON sp_api_client',
      'sp/api-client-network.json TOOL_EXECUTION_FAILED sp_api_client',
      'sp/api-http-400.json UPSTREAM_HTTP_400 sp_api_http',
      'sp/api-http-404.json UPSTREAM_HTTP_404 sp_api_http',
      'sp/api-http-503.json UPSTREAM_HTTP_503 sp_api_http',
      'v1/ads/rate-limited-429.json RATE_LIMITED ads_api_http',
      'v1/ads/tool-not-found.json TOOL_NOT_FOUND mcp_input_validation',
      'v1/sp/auth-error-401.json SP_API_HTTP_401 sp_api_http',
      'v1/sp/auth-error-403.json SP_API_HTTP_403 sp_api_http',
      'v1/sp/rate-limited-429.json RATE_LIMITED sp_api_http',
      'v1/sp/tool-not-found.json TOOL_NOT_FOUND mcp_input_validation',
    ]);
  });
});
