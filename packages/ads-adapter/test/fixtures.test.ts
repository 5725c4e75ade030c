import { validateEnvelope, validateMeta } from '@mcp-envelope/contract';
import { describe, expect, it } from 'vitest';

import { classifyAdsHttpFailure } from '../src/classify.js';
import { adsPartialResultsWarning } from '../src/partial-results.js';
import { parseAdsResponseMeta } from '../src/response-meta.js';
import { FIXTURE_HOST, UPSTREAM_FIXTURES } from './support/fixtures.js';

const NOW = new Date('2026-09-03T11:59:00Z');

describe('recorded Ads API answers, classified directly', () => {
  it('has the recorded scenarios', () => {
    expect(UPSTREAM_FIXTURES.length).toBe(29);
    expect(UPSTREAM_FIXTURES.filter((fixture) => fixture.response.status >= 400).length).toBe(25);
  });

  for (const fixture of UPSTREAM_FIXTURES.filter((entry) => entry.response.status >= 400)) {
    it(`${fixture.id}: ${fixture.expected.error_kind} / ${fixture.expected.error_code} from ${fixture.expected.upstream}`, () => {
      const classified = classifyAdsHttpFailure(
        {
          type: 'upstream_http',
          status: fixture.response.status,
          headers: fixture.response.headers,
          body: fixture.response.body,
          request: { method: fixture.request.method, url: `${FIXTURE_HOST}${fixture.request.path}` },
        },
        NOW,
      );
      expect(classified.error_kind).toBe(fixture.expected.error_kind);
      expect(classified.error_code).toBe(fixture.expected.error_code);
      expect(classified.upstream).toBe(fixture.expected.upstream);
      expect(classified.retryable).toBe(fixture.expected.retryable);
      expect(classified.details).toEqual(fixture.expected.details);
      for (const fragment of fixture.expected.hints_contain ?? []) {
        expect(
          classified.hints.some((hint) => hint.includes(fragment)),
          `a hint containing "${fragment}" in ${JSON.stringify(classified.hints)}`,
        ).toBe(true);
      }
      expect(classified.meta).toEqual(fixture.expected.meta);
      expect(classified.summary).toContain(`HTTP ${fixture.response.status}`);
      const { meta, ...fields } = classified;
      const envelope = {
        ...fields,
        tool: fixture.call.tool,
        examples: [],
        _envelope_version: 2,
        ...(meta === undefined ? {} : { _meta: meta }),
      };
      expect(validateEnvelope(envelope)).toEqual({ valid: true, version: 2 });
    });
  }

  for (const fixture of UPSTREAM_FIXTURES.filter((entry) => entry.response.status < 400)) {
    it(`${fixture.id}: success meta`, () => {
      const meta = parseAdsResponseMeta(fixture.response.headers, NOW);
      const partial = adsPartialResultsWarning(
        fixture.response.status,
        fixture.response.body,
        fixture.response.headers,
      );
      const combined = { ...meta, ...(partial === undefined ? {} : { warnings: [...(meta.warnings ?? []), partial] }) };
      expect(Object.keys(combined).length === 0 ? undefined : combined).toEqual(fixture.expected.meta);
      expect(validateMeta(combined)).toEqual({ valid: true });
    });
  }
});
