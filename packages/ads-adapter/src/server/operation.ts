/**
 * What the reference server knows about one upstream Ads operation, whether written by hand
 * (the built-in catalog) or converted from an OpenAPI 3 description (`--models`).
 *
 * @packageDocumentation
 */
import type { EnvelopeTool, JsonSchemaObject } from '@mcp-envelope/core';
import { toolAnnotationsForMethod } from '@mcp-envelope/core/openapi';
import type { MethodToolAnnotations, OperationBody, OperationParameter } from '@mcp-envelope/core/openapi';

/**
 * The MCP tool annotations of one Ads operation, from its method (core's
 * `toolAnnotationsForMethod`), except that the Ads APIs read, update and delete with POST: a POST
 * to a `/list` or `/query` path is read-only like a GET, and a POST to a `/delete` or `/update`
 * path (`/adsApi/v1/delete/ads`, `/sp/campaigns/delete`) changes what exists, like a PATCH. Any
 * other method keeps its own hints. Whether a tool is idempotent decides if its timeouts stay
 * retryable (CONTRACT.md "Safe retries").
 *
 * @param method - the upper-case HTTP method.
 * @param path - the path template, e.g. `/sp/campaigns/list`.
 * @returns the four hints, all set.
 */
export function adsOperationAnnotations(method: string, path: string): MethodToolAnnotations {
  if (method.toUpperCase() !== 'POST') return toolAnnotationsForMethod(method);
  if (/\/(?:query|list)(?:\/|$)/i.test(path)) return toolAnnotationsForMethod('GET');
  return /\/(?:delete|update)(?:\/|$)/i.test(path)
    ? toolAnnotationsForMethod('PATCH')
    : toolAnnotationsForMethod('POST');
}

/**
 * Which account header a call carries besides the client id:
 * - `profile`: `Amazon-Advertising-API-Scope: <active profile id>` (v2, v3, v4, reporting);
 * - `account`: `Amazon-Ads-ClientId` and `Amazon-Ads-AccountId` (the unified v1 APIs), plus the
 *   scope header when a profile is active;
 * - `none`: no account header (listing profiles).
 */
export type AdsAccountHeader = 'profile' | 'account' | 'none';

/** One upstream operation served as one tool. */
export interface AdsOperation {
  /** The tool name. */
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** Upper-case HTTP method. */
  readonly method: string;
  /** Path template, e.g. `/reporting/reports/{reportId}`. */
  readonly path: string;
  /** Non-body arguments and where they go. */
  readonly parameters: readonly OperationParameter[];
  /** Where the JSON body comes from. */
  readonly body?: OperationBody;
  /**
   * When true, every argument that is not a parameter forms the body (the built-in tools take the
   * body's fields at the top level); `body.property` is then ignored.
   */
  readonly flatBody?: boolean;
  readonly inputSchema: JsonSchemaObject;
  readonly accountHeader: AdsAccountHeader;
  /** Vendor media type sent as `Accept` and, with a body, `Content-Type`. */
  readonly mediaType?: string;
  /** Set only for a tool that is more than its operation; absent: read from its method and path (operation.ts). */
  readonly annotations?: NonNullable<EnvelopeTool['annotations']>;
  /** Wraps a JSON array answer as `{ [resultKey]: [...] }` so the result can carry `_meta`. */
  readonly resultKey?: string;
}
