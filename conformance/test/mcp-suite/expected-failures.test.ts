import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { parseExpectedFailures, readExpectedFailures } from '../../src/mcp-suite/expected-failures.js';
import { APPLICABLE_SCENARIOS, NOT_APPLICABLE_SCENARIOS, SUITE_LINES } from '../../src/mcp-suite/suite-lines.js';

describe('parseExpectedFailures', () => {
  it('reads server entries with the comment lines above them and inline comments as the reason', () => {
    const text = [
      '# file header',
      'server:',
      '  # the first reason',
      '  # continues here',
      '  - alpha',
      '  - beta # inline reason',
      '  - gamma',
      'client:',
      '  - sse-retry',
      '',
    ].join('\n');
    expect(parseExpectedFailures(text)).toEqual([
      { scenario: 'alpha', reason: 'the first reason continues here' },
      { scenario: 'beta', reason: 'inline reason' },
      { scenario: 'gamma', reason: '' },
    ]);
  });

  it('an empty file or one without server entries lists nothing', () => {
    expect(parseExpectedFailures('')).toEqual([]);
    expect(parseExpectedFailures('client:\n  - x\n')).toEqual([]);
  });

  it('rejects what the suite rejects', () => {
    expect(() => parseExpectedFailures('- a\n- b\n')).toThrow("expected an object with 'server' and/or 'client' keys");
    expect(() => parseExpectedFailures('server: ping\n')).toThrow("'server' must be a list of scenario names");
  });

  it.each([
    ['pinned', []],
    ['next', []],
  ] as const)("the project's %s file gives a reason for every entry and names only scenarios that run", (id, names) => {
    const line = SUITE_LINES[id];
    const entries = readExpectedFailures(join(import.meta.dirname, '..', '..', line.expectedFailuresFile));
    expect(entries.map((entry) => entry.scenario)).toEqual(names);
    for (const entry of entries) {
      expect(entry.reason.length).toBeGreaterThan(20);
      expect(line.scenarios.includes(entry.scenario)).toBe(true);
    }
  });

  it('the applicable and not-applicable scenarios do not overlap and cover the required ones', () => {
    for (const line of Object.values(SUITE_LINES))
      expect(line.scenarios.filter((scenario) => Object.hasOwn(line.notApplicable, scenario))).toEqual([]);
    expect(APPLICABLE_SCENARIOS.filter((scenario) => Object.hasOwn(NOT_APPLICABLE_SCENARIOS, scenario))).toEqual([]);
    expect(APPLICABLE_SCENARIOS).toEqual(
      expect.arrayContaining([
        'server-initialize',
        'ping',
        'tools-list',
        'tools-call-simple-text',
        'tools-call-error',
        'json-schema-2020-12',
        'dns-rebinding-protection',
      ]),
    );
  });
});
