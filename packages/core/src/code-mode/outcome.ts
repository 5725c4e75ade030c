/**
 * How a failed sandbox run becomes the envelope of `execute_code`: a limit gives `sandbox_runtime`
 * / `CODE_MODE_SANDBOX_LIMITATION` naming the limit, its setting and value; a syntax error gives
 * `mcp_input_validation` (the `code` argument was rejected before anything ran); a runtime error
 * gives `sandbox_runtime` (the code ran, and may have made calls, before it failed). Implements
 * CONTRACT.md "Code Mode".
 *
 * @packageDocumentation
 */
import type { EnvelopeDetail } from '@mcp-envelope/contract';

import { EnvelopeError } from '../errors.js';
import type { SandboxEnd } from './sandbox.js';
import type { CodeModeSettings } from './settings.js';

/** A failed sandbox outcome. */
export type SandboxFailure = Exclude<SandboxEnd, { readonly ok: true }>;

type LimitFailure = Extract<SandboxFailure, { readonly limit: string }>;
type CodeFailure = Extract<SandboxFailure, { readonly error: string }>;
type LimitName = LimitFailure['limit'];

const MAX_MESSAGE = 1000;

interface LimitText {
  readonly setting: keyof CodeModeSettings | undefined;
  readonly unit: string;
  readonly summary: string;
  readonly hint: string;
}

const LIMIT_TEXTS: Readonly<Record<LimitName, LimitText>> = {
  wall_time: {
    setting: 'CODE_MODE_WALL_TIME_MS',
    unit: 'ms',
    summary: 'The code ran longer than its wall-time limit and was stopped.',
    hint: 'Do less in one execute_code call (no unbounded loops, fewer or smaller inner calls), or split the work across several calls.',
  },
  memory: {
    setting: 'CODE_MODE_MEMORY_MB',
    unit: 'MiB',
    summary: 'The code used more memory than the sandbox allows and was stopped.',
    hint: 'Keep less data in memory: select the fields you need from each result instead of holding whole responses.',
  },
  output: {
    setting: 'CODE_MODE_OUTPUT_BYTES',
    unit: 'bytes',
    summary: 'The value the code returned is larger than the output limit.',
    hint: 'Return less: pick the fields you need, summarize, or page through the data across several calls.',
  },
  inner_calls: {
    setting: 'CODE_MODE_MAX_CALLS',
    unit: 'calls',
    summary: 'The code made more callTool calls than one execute_code call allows.',
    hint: 'Make fewer callTool calls per execute_code call, or split the work across several calls.',
  },
  blocked_capability: {
    setting: undefined,
    unit: '',
    summary: 'The code used a capability the sandbox does not offer.',
    hint: 'Only callTool(name, args) reaches the outside: there is no require, import, network, file system, process or timer.',
  },
};

function bounded(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 3)}...` : text;
}

function limitError(failure: LimitFailure, settings: CodeModeSettings): EnvelopeError {
  const text = LIMIT_TEXTS[failure.limit];
  const value = text.setting === undefined ? undefined : settings[text.setting];
  const named =
    text.setting === undefined ? failure.limit : `${failure.limit} (${text.setting} = ${String(value)} ${text.unit})`;
  const detail: EnvelopeDetail = {
    path: 'code',
    issue: bounded(`Sandbox limit ${named}: ${failure.detail}`),
    received_type: 'string',
    reason: failure.limit,
    ...(text.setting === undefined ? {} : { setting: text.setting, limit: value }),
  };
  return new EnvelopeError({
    error_kind: 'sandbox_runtime',
    error_code: 'CODE_MODE_SANDBOX_LIMITATION',
    summary: text.summary,
    details: [detail],
    hints: [text.hint],
  });
}

function position(failure: CodeFailure): string {
  if (failure.line === undefined) return '';
  return failure.column === undefined ? ` (line ${failure.line})` : ` (line ${failure.line}, column ${failure.column})`;
}

function codeError(failure: CodeFailure): EnvelopeError {
  const detail: EnvelopeDetail = {
    path: 'code',
    issue: bounded(`${failure.message}${position(failure)}`),
    received_type: 'string',
    reason: failure.error === 'syntax' ? 'syntax_error' : 'runtime_error',
    ...(failure.line === undefined ? {} : { line: failure.line }),
    ...(failure.column === undefined ? {} : { column: failure.column }),
  };
  if (failure.error === 'syntax')
    return new EnvelopeError({
      error_kind: 'mcp_input_validation',
      error_code: 'INPUT_VALIDATION_FAILED',
      summary: `The code does not parse: ${bounded(failure.message)}${position(failure)}`,
      details: [detail],
      hints: [
        'code is the body of an async JavaScript function: statements, await callTool(name, args), and a return value.',
      ],
    });
  return new EnvelopeError({
    error_kind: 'sandbox_runtime',
    error_code: 'CODE_MODE_SANDBOX_LIMITATION',
    summary: `The code threw: ${bounded(failure.message)}${position(failure)}`,
    details: [detail],
    hints: [
      'Fix the code at that line. A failed callTool returns its envelope (result._envelope_version is set, 1 or 2 as your client reads); only a failure without an envelope throws.',
    ],
  });
}

/**
 * The error `execute_code` throws for a failed sandbox run (core turns it into the envelope).
 *
 * @param failure - the sandbox's outcome.
 * @param settings - the limits in force, named in the detail.
 * @returns the error to throw.
 */
export function sandboxFailureError(failure: SandboxFailure, settings: CodeModeSettings): EnvelopeError {
  return 'limit' in failure ? limitError(failure, settings) : codeError(failure);
}

/**
 * The error `execute_code` throws when its session already has `CODE_MODE_MAX_SESSION_RUNS` runs
 * queued or running: `sandbox_runtime` / `CODE_MODE_SANDBOX_LIMITATION` with
 * `reason: "session_runs"`, retryable, and `_meta.retry_after_seconds` one wall time (by then a
 * run of the session that is running has ended, or been stopped).
 *
 * @param settings - the limits in force, named in the detail.
 * @returns the error to throw.
 */
export function sessionRunsError(settings: CodeModeSettings): EnvelopeError {
  const limit = settings.CODE_MODE_MAX_SESSION_RUNS;
  const retryAfterSeconds = settings.CODE_MODE_WALL_TIME_MS / 1000;
  return new EnvelopeError({
    error_kind: 'sandbox_runtime',
    error_code: 'CODE_MODE_SANDBOX_LIMITATION',
    summary: `This session already has ${limit} execute_code runs queued or running; the code was not run.`,
    details: [
      {
        path: 'code',
        issue: `Sandbox limit session_runs (CODE_MODE_MAX_SESSION_RUNS = ${limit} runs): refused before it ran, nothing was called.`,
        received_type: 'string',
        reason: 'session_runs',
        setting: 'CODE_MODE_MAX_SESSION_RUNS',
        limit,
      },
    ],
    hints: [
      `Wait ${retryAfterSeconds} s (_meta.retry_after_seconds) or until an execute_code call of this session returns, then call again; or send fewer execute_code calls at once and do more in each.`,
    ],
    retryable: true,
    _meta: { retry_after_seconds: retryAfterSeconds },
  });
}
