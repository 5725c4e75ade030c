/**
 * What the reference server knows about one upstream Ads operation, whether written by hand
 * (the built-in catalog) or converted from an OpenAPI 3 description (`--models`).
 *
 * @packageDocumentation
 */
import type { EnvelopeTool, JsonSchemaObject } from '@mcp-envelope/core';
import type { OperationBody, OperationParameter } from '@mcp-envelope/core/openapi';

/** MCP tool annotations, as core's tools take them. */

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
  readonly annotations?: NonNullable<EnvelopeTool['annotations']>;
  /** Wraps a JSON array answer as `{ [resultKey]: [...] }` so the result can carry `_meta`. */
  readonly resultKey?: string;
}
