/**
 * The limiter's step of the `tools/call` pipeline: before a tool's handler runs, take a token for
 * the bucket of this server, tool and identity; wait for it when it is due within
 * `MCP_RATE_LIMIT_MAX_WAIT_MS`; else answer a `rate_limited` envelope before anything went
 * upstream. After the handler, learn from what upstream said, and give the token back when the
 * call was cancelled before any upstream request started.
 * Implements CONTRACT.md "rate_limited" (pre-flight limiter).
 *
 * @packageDocumentation
 */
import { CONTRACT_VERSION } from '@mcp-envelope/contract';
import type { ErrorEnvelope } from '@mcp-envelope/contract';

import type { EnvelopeLogger } from '../logger.js';
import type { CallRecord, ToolHandlerContext } from '../types.js';

import type { RateLimiter } from './limiter.js';
import { ratePerSecond } from './per-second.js';
import type { RateLimitPlan, RateLimitTake } from './store.js';
import { upstreamLimitState } from './upstream-answer.js';

/** What the step needs to know of a call. */
export interface RateLimitCall {
  readonly serverId: string;
  readonly tool: string;
  /** The identity the call runs under (a seller, an account), when the adapter knows one. */
  readonly identity: string | undefined;
  readonly plan: RateLimitPlan | undefined;
}

/**
 * The step's decision: go on (and report back after the handler, or give the token back when the
 * call goes no further, such as one the concurrency guard refuses), or this refusal.
 */
export type RateLimitDecision =
  | { readonly go: true; readonly after: (call: CallRecord) => Promise<void>; readonly refund: () => Promise<void> }
  | { readonly go: false; readonly envelope: ErrorEnvelope };

/**
 * The bucket key of a call: server, tool and identity, never shared across identities.
 *
 * @returns `server\u0000tool` or `server\u0000tool\u0000identity`.
 */
export function rateLimitKey(serverId: string, tool: string, identity: string | undefined): string {
  // NUL cannot occur in a tool name or an identity read from a header or an argument
  const base = `${serverId}\u0000${tool}`;
  return identity === undefined || identity === '' ? base : `${base}\u0000${identity}`;
}

function refusal(tool: string, plan: RateLimitPlan, taken: RateLimitTake, cancelled: boolean): ErrorEnvelope {
  const retryAfterSeconds = Math.ceil(taken.waitMs) / 1000;
  const summary = cancelled
    ? `The call to ${tool} was cancelled while waiting for this server's rate limiter; nothing was sent upstream.`
    : `This server's rate limiter refused the call to ${tool} before any upstream call: its budget (${plan.ratePerSecond} requests per second, burst ${plan.burst}) is spent; the next request is allowed in ${retryAfterSeconds} s.`;
  return {
    error_kind: 'rate_limited',
    tool,
    summary,
    details: [
      {
        path: '',
        issue: 'refused before any upstream call by the pre-flight rate limiter',
        received_type: 'object',
        limit_per_second: plan.ratePerSecond,
        burst: plan.burst,
      },
    ],
    hints: [
      `Wait ${retryAfterSeconds} s (_meta.retry_after_seconds), then call ${tool} again; calls made sooner are refused the same way.`,
    ],
    examples: [],
    error_code: 'RATE_LIMITED',
    retryable: true,
    _envelope_version: CONTRACT_VERSION,
    _meta: {
      retry_after_seconds: retryAfterSeconds,
      // the plan is a rate per second: `limit` over a one-second window, and the same as `limit_per_second` for v1 readers
      rate_limit: {
        limit: plan.ratePerSecond,
        window_seconds: 1,
        limit_per_second: plan.ratePerSecond,
        remaining: taken.remaining,
        reset_at: new Date(taken.resetAtMs).toISOString(),
        reset_after_seconds: Math.ceil(taken.resetAfterMs ?? Math.max(0, taken.resetAtMs - Date.now())) / 1000,
      },
    },
  };
}

/** Waits `ms`, or less when `signal` aborts. @returns false when aborted. */
function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (completed: boolean): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(completed);
    };
    const onAbort = (): void => {
      done(false);
    };
    const timer = setTimeout(done, ms, true);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function numeric(value: number | string | undefined): number | undefined {
  const parsed = typeof value === 'string' ? Number(value) : value;
  return parsed !== undefined && Number.isFinite(parsed) && parsed > 0 ? parsed : undefined;
}

/**
 * Decides one call before its handler runs.
 *
 * @param limiter - the server's limiter.
 * @param call - the call's server, tool, identity and the tool's own plan.
 * @param signal - the call's cancellation signal (aborts a wait, and the token is given back).
 * @returns go (with what to do after the handler) or a refusal envelope (not yet finalized).
 */
export async function decideRateLimit(
  limiter: RateLimiter,
  call: RateLimitCall,
  signal: AbortSignal,
): Promise<RateLimitDecision> {
  const key = rateLimitKey(call.serverId, call.tool, call.identity);
  const learn = (context: CallRecord): Promise<void> => {
    const last = context.lastAnswer;
    const state =
      last === undefined ? undefined : upstreamLimitState(context.adapter, last.answer, context.tool, last.arrived);
    return limiter.learn(key, call.plan, {
      limitPerSecond: ratePerSecond(context.rateLimit),
      remaining: numeric(context.rateLimit?.remaining),
      status: context.upstreamStatus,
      retryAfterSeconds: state?.waitSeconds ?? context.retryAfterSeconds,
      rateLimited: state?.limited,
      exhausted: state?.exhausted,
    });
  };
  const plan = limiter.planFor(key, call.plan);
  if (plan === undefined) return { go: true, after: learn, refund: () => Promise.resolve() };
  const taken = await limiter.take(key, plan);
  if (!taken.granted) return { go: false, envelope: refusal(call.tool, plan, taken, false) };
  if (taken.waitMs > 0 && !(await wait(taken.waitMs, signal))) {
    await limiter.refund(key, plan);
    return { go: false, envelope: refusal(call.tool, plan, taken, true) };
  }
  return {
    go: true,
    after: async (context) => {
      if (context.signal.aborted && !context.upstreamStarted) await limiter.refund(key, plan);
      await learn(context);
    },
    refund: () => limiter.refund(key, plan),
  };
}

/** What the pipeline hands the limiter step: the server's limiter and the id its keys start with. */
export interface RateLimitStepInput {
  readonly limiter: RateLimiter;
  readonly serverId: string;
  readonly logger: EnvelopeLogger;
  /**
   * Tools the limiter leaves alone: the server's own tools that never go upstream themselves
   * (`get_envelope_contract`, Code Mode's meta tools). They take no token and learn nothing, since
   * `execute_code` carries its inner calls' telemetry, from which it would learn their limit.
   */
  readonly unlimited?: ReadonlySet<string>;
}

/** The parts of a tool the step reads. */
export interface RateLimitedTool {
  readonly name: string;
  readonly rateLimit?: RateLimitPlan | undefined;
  readonly rateLimitIdentity?:
    ((args: Record<string, unknown>, context: ToolHandlerContext) => string | undefined) | undefined;
}

/**
 * The limiter step of one call, which never fails the call: a limiter that throws (an identity
 * function, a broken store and fallback) logs a line and lets the call through unlimited.
 *
 * @returns the decision, or `undefined` when the limiter is off or failed, or the tool is one of
 *   `input.unlimited`.
 */
export async function rateLimitStep(
  input: RateLimitStepInput | undefined,
  tool: RateLimitedTool,
  args: Record<string, unknown>,
  context: ToolHandlerContext,
): Promise<RateLimitDecision | undefined> {
  if (input === undefined || input.unlimited?.has(tool.name) === true) return undefined;
  try {
    const identity = tool.rateLimitIdentity?.(args, context);
    return await decideRateLimit(
      input.limiter,
      { serverId: input.serverId, tool: tool.name, identity, plan: tool.rateLimit },
      context.signal,
    );
  } catch (error) {
    input.logger.warn(
      { tool: tool.name, error: error instanceof Error ? error.name : typeof error },
      'the rate limiter failed; the call goes on without it',
    );
    return undefined;
  }
}
