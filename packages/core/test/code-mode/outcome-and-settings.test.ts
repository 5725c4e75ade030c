import { validateEnvelope } from '@mcp-envelope/contract';
import { describe, expect, it } from 'vitest';

import { sandboxFailureError } from '../../src/code-mode/outcome.js';
import { CODE_MODE_DEFAULTS, resolveCodeModeSettings } from '../../src/code-mode/settings.js';
import { RATE_LIMIT_DEFAULTS } from '../../src/rate-limit/settings.js';
import type { EnvelopeLogger } from '../../src/logger.js';

function captureLog(): { logger: EnvelopeLogger; lines: { details: Record<string, unknown>; message: string }[] } {
  const lines: { details: Record<string, unknown>; message: string }[] = [];
  const record = (details: Record<string, unknown>, message: string): void => {
    lines.push({ details, message });
  };
  return { logger: { warn: record, error: record }, lines };
}

const SETTINGS = { ...CODE_MODE_DEFAULTS, CODE_MODE: true };

function envelopeOf(error: ReturnType<typeof sandboxFailureError>): Record<string, unknown> {
  const envelope = { ...error.toEnvelope(), tool: 'execute_code' };
  expect(validateEnvelope(envelope).valid).toBe(true);
  return envelope;
}

describe('sandboxFailureError', () => {
  it('a limit: sandbox_runtime / CODE_MODE_SANDBOX_LIMITATION naming the limit, its setting and value, with a hint', () => {
    const envelope = envelopeOf(
      sandboxFailureError({ ok: false, limit: 'wall_time', detail: 'ran 5000 ms' }, SETTINGS),
    );
    expect(envelope).toMatchObject({
      error_kind: 'sandbox_runtime',
      error_code: 'CODE_MODE_SANDBOX_LIMITATION',
      retryable: false,
      summary: 'The code ran longer than its wall-time limit and was stopped.',
      details: [
        {
          path: 'code',
          issue: 'Sandbox limit wall_time (CODE_MODE_WALL_TIME_MS = 5000 ms): ran 5000 ms',
          received_type: 'string',
          reason: 'wall_time',
          setting: 'CODE_MODE_WALL_TIME_MS',
          limit: 5000,
        },
      ],
    });
    expect((envelope['hints'] as string[])[0]).toMatch(/split the work/);
    const calls = envelopeOf(sandboxFailureError({ ok: false, limit: 'inner_calls', detail: 'call 51' }, SETTINGS));
    expect(calls['details']).toEqual([expect.objectContaining({ setting: 'CODE_MODE_MAX_CALLS', limit: 50 })]);
    const blocked = envelopeOf(
      sandboxFailureError({ ok: false, limit: 'blocked_capability', detail: 'require' }, SETTINGS),
    );
    expect(blocked['details']).toEqual([
      {
        path: 'code',
        issue: 'Sandbox limit blocked_capability: require',
        received_type: 'string',
        reason: 'blocked_capability',
      },
    ]);
  });

  it.each([
    {
      error: 'syntax',
      message: "SyntaxError: expecting ')'",
      line: 2,
      column: 7,
      kind: 'mcp_input_validation',
      code: 'INPUT_VALIDATION_FAILED',
      summary: "The code does not parse: SyntaxError: expecting ')' (line 2, column 7)",
      reason: 'syntax_error',
    },
    {
      error: 'runtime',
      message: 'TypeError: x is undefined',
      line: 3,
      column: 1,
      kind: 'sandbox_runtime',
      code: 'CODE_MODE_SANDBOX_LIMITATION',
      summary: 'The code threw: TypeError: x is undefined (line 3, column 1)',
      reason: 'runtime_error',
    },
  ] as const)('a $error error: $kind / $code with the message, line and column', (row) => {
    const { error, message, line, column } = row;
    const envelope = envelopeOf(sandboxFailureError({ ok: false, error, message, line, column }, SETTINGS));
    expect(envelope).toMatchObject({
      error_kind: row.kind,
      error_code: row.code,
      summary: row.summary,
      details: [{ path: 'code', reason: row.reason, line, column }],
    });
  });
});

describe('resolveCodeModeSettings', () => {
  it('defaults: off, 5000 ms, 64 MiB, 1 MiB, 50 calls, 8 runs per session', () => {
    const { logger } = captureLog();
    expect(resolveCodeModeSettings({}, {}, logger)).toEqual({
      CODE_MODE: false,
      CODE_MODE_WALL_TIME_MS: 5000,
      CODE_MODE_MEMORY_MB: 64,
      CODE_MODE_OUTPUT_BYTES: 1048576,
      CODE_MODE_MAX_CALLS: 50,
      CODE_MODE_MAX_SESSION_RUNS: 8,
    });
  });

  it('CODE_MODE_MAX_SESSION_RUNS: read from the env, an option wins, 0 or a word falls back with a warning', () => {
    const { logger, lines } = captureLog();
    expect(resolveCodeModeSettings({ CODE_MODE_MAX_SESSION_RUNS: '3' }, {}, logger).CODE_MODE_MAX_SESSION_RUNS).toBe(3);
    expect(
      resolveCodeModeSettings(
        { CODE_MODE_MAX_SESSION_RUNS: '3' },
        { codeModeLimits: { CODE_MODE_MAX_SESSION_RUNS: 20 } },
        logger,
      ).CODE_MODE_MAX_SESSION_RUNS,
    ).toBe(20);
    for (const bad of ['0', 'lots', '-2'])
      expect(resolveCodeModeSettings({ CODE_MODE_MAX_SESSION_RUNS: bad }, {}, logger).CODE_MODE_MAX_SESSION_RUNS).toBe(
        8,
      );
    expect(lines.map((line) => line.details['variable'])).toEqual([
      'CODE_MODE_MAX_SESSION_RUNS',
      'CODE_MODE_MAX_SESSION_RUNS',
      'CODE_MODE_MAX_SESSION_RUNS',
    ]);
  });

  it('the exported defaults cannot be changed by a caller, which every later server would read', () => {
    const defaults = CODE_MODE_DEFAULTS as { CODE_MODE_WALL_TIME_MS: number };
    expect(() => {
      defaults.CODE_MODE_WALL_TIME_MS = 1;
    }).toThrow(TypeError);
    expect(resolveCodeModeSettings({}, {}, captureLog().logger).CODE_MODE_WALL_TIME_MS).toBe(5000);
    const limiter = RATE_LIMIT_DEFAULTS as { MCP_RATE_LIMIT_MAX_WAIT_MS: number };
    expect(() => {
      limiter.MCP_RATE_LIMIT_MAX_WAIT_MS = 1;
    }).toThrow(TypeError);
  });

  it('reads the env like the other switches; options win; a bad value falls back with a warning', () => {
    const { logger, lines } = captureLog();
    const env = { CODE_MODE: ' Yes ', CODE_MODE_WALL_TIME_MS: '250', CODE_MODE_MAX_CALLS: 'many' };
    expect(resolveCodeModeSettings(env, {}, logger)).toMatchObject({
      CODE_MODE: true,
      CODE_MODE_WALL_TIME_MS: 250,
      CODE_MODE_MAX_CALLS: 50,
    });
    expect(lines.map((line) => line.details['variable'])).toEqual(['CODE_MODE_MAX_CALLS']);
    expect(
      resolveCodeModeSettings(env, { codeMode: false, codeModeLimits: { CODE_MODE_WALL_TIME_MS: 100 } }, logger),
    ).toMatchObject({ CODE_MODE: false, CODE_MODE_WALL_TIME_MS: 100 });
    expect(resolveCodeModeSettings({ CODE_MODE: 'maybe' }, {}, logger).CODE_MODE).toBe(false);
    expect(() => resolveCodeModeSettings({}, { codeModeLimits: { CODE_MODE_MEMORY_MB: 0 } }, logger)).toThrow(
      TypeError,
    );
  });

  it('a wall time or memory limit above what the timers and QuickJS can hold falls back (env) or throws (option)', () => {
    const { logger, lines } = captureLog();
    const env = {
      CODE_MODE_WALL_TIME_MS: '3000000000',
      CODE_MODE_MEMORY_MB: '4096',
      CODE_MODE_OUTPUT_BYTES: '5000000000',
    };
    expect(resolveCodeModeSettings(env, {}, logger)).toMatchObject({
      CODE_MODE_WALL_TIME_MS: 5000,
      CODE_MODE_MEMORY_MB: 64,
      CODE_MODE_OUTPUT_BYTES: 5_000_000_000,
    });
    expect(lines.map((line) => line.details)).toEqual([
      { variable: 'CODE_MODE_WALL_TIME_MS', default: 5000, maximum: 3_600_000 },
      { variable: 'CODE_MODE_MEMORY_MB', default: 64, maximum: 4095 },
    ]);
    expect(resolveCodeModeSettings({ CODE_MODE_MEMORY_MB: '4095' }, {}, logger).CODE_MODE_MEMORY_MB).toBe(4095);
    expect(() => resolveCodeModeSettings({}, { codeModeLimits: { CODE_MODE_MEMORY_MB: 4096 } }, logger)).toThrow(
      'the option for CODE_MODE_MEMORY_MB must be an integer from 1 to 4095, got 4096',
    );
  });
});
