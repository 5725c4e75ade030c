/**
 * The tools every server of the peer benchmark serves, defined once so that core and its peers
 * do the same work: `bench` (the 20-property schema, answered at once) and `fetch_orders` (the
 * same schema, answered from the loopback upstream at `UPSTREAM_URL`, which answers 429 when
 * `name0` is {@link THROTTLED_NAME}).
 */
import { twentyPropertyTool, twentyPropertyValue } from '../generate-tools.js';

/** The `name0` for which the loopback upstream answers 429 Too Many Requests. */
export const THROTTLED_NAME = 'throttled';

/** The 20-property JSON Schema of both tools (the hot paths' schema). */
export const TOOL_SCHEMA = twentyPropertyTool().schema as { type: 'object' };

/** What `bench` answers: the hot paths' small object. */
export const benchValue = twentyPropertyValue;

/** Where `fetch_orders` reads its page of orders for `args`. */
export function ordersUrl(args: Record<string, unknown>): string {
  const upstream = process.env['UPSTREAM_URL'];
  if (upstream === undefined) throw new Error('UPSTREAM_URL must name the loopback upstream');
  return `${upstream}/orders?name=${encodeURIComponent(String(args['name0']))}`;
}

/**
 * What a peer's hand-written `fetch_orders` does: fetch, and on a failure status an error result
 * that carries the status and the upstream's body (the usual way; the SDK has no other).
 */
export async function fetchOrdersResult(args: Record<string, unknown>): Promise<{
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}> {
  const response = await fetch(ordersUrl(args));
  if (!response.ok) {
    const text = `Upstream HTTP ${response.status}: ${await response.text()}`;
    return { content: [{ type: 'text', text }], isError: true };
  }
  const value = (await response.json()) as Record<string, unknown>;
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}
