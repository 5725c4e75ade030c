/**
 * Reads a usage plan stated in an operation's description: a Markdown table whose header is
 * `| Rate (requests per second) | Burst |` and whose first body row holds two numbers. The tool
 * built from the operation then carries that token bucket. Implements CONTRACT.md
 * "rate_limited" (pre-flight limiter).
 *
 * @packageDocumentation
 */
import type { RateLimitPlan } from '../rate-limit/store.js';

// header row, separator row, first body row (whose last two cells are rate and burst: some tables
// lead with a label column, such as "Default")
const PLAN_TABLE =
  /\|[ \t]*Rate \(requests per second\)[ \t]*\|[ \t]*Burst[ \t]*\|[^\n]*\n[ \t]*\|[-| \t:]+\n[ \t]*(\|[^\n]*\|)/i;

/**
 * The plan an operation description states, when it states one with usable numbers.
 *
 * @param description - the operation's full `description` (before any capping).
 * @returns `{ ratePerSecond, burst }`; `undefined` without a table, or when a cell is not a
 *   number (a placeholder), the rate is not > 0 or the burst is not >= 1.
 */
export function rateLimitPlanFromDescription(description: string | undefined): RateLimitPlan | undefined {
  if (description === undefined) return undefined;
  // a few descriptions carry their line breaks escaped, as the two characters `\n`
  const match = PLAN_TABLE.exec(description.replaceAll('\\n', '\n'));
  if (match === null) return undefined;
  const cells = (match[1] ?? '').split('|').slice(1, -1);
  const rateText = (cells.at(-2) ?? '').trim();
  const burstText = (cells.at(-1) ?? '').trim();
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(rateText) || !/^\d+$/.test(burstText)) return undefined;
  const ratePerSecond = Number(rateText);
  const burst = Number(burstText);
  return ratePerSecond > 0 && burst >= 1 ? { ratePerSecond, burst } : undefined;
}
