/**
 * The GitHub implementation of core's `EnvelopeAdapter`: the kinds it can emit, the classifier,
 * the response meta parser and the redaction rules. Its only upstream, `github`, has no version 1
 * spelling, so a server with this adapter answers in contract version 2 only.
 *
 * @packageDocumentation
 */
import type { EnvelopeAdapter } from '@mcp-envelope/core';
import { restInBandFailure } from '@mcp-envelope/core/adapter';

import { classifyGithubFailure, GITHUB_ERROR_KINDS, GITHUB_UPSTREAMS } from './classify.js';
import type { GithubClassifyOptions } from './classify.js';
import { GITHUB_REDACTOR_OPTIONS } from './redaction.js';
import { parseGithubResponseMeta } from './response-meta.js';

/** The adapter's server id (migrations table, reports). */
export const GITHUB_SERVER_ID = 'github';

/**
 * Builds a GitHub adapter.
 *
 * @param options - how the classifier finds a tool's body property (for detail pointers).
 * @returns the frozen adapter: `id: 'github'`, `errorKinds`, `upstreams: ['github']`, `classify`,
 *   `parseResponseMeta`, `redactions`, and `inBandFailure`: the HTTP kit's common forms (a 2xx
 *   body of nothing but `error`, or a non-empty `errors` without `data`), as the GraphQL endpoint
 *   answers a failed query.
 */
export function createGithubAdapter(options: GithubClassifyOptions = {}): EnvelopeAdapter {
  return Object.freeze({
    id: GITHUB_SERVER_ID,
    errorKinds: GITHUB_ERROR_KINDS,
    upstreams: GITHUB_UPSTREAMS,
    classify: (failure, context) => classifyGithubFailure(failure, context, options),
    parseResponseMeta: (headers, now) => parseGithubResponseMeta(headers, now),
    redactions: GITHUB_REDACTOR_OPTIONS,
    inBandFailure: (answer) => restInBandFailure(answer.body),
  } satisfies EnvelopeAdapter);
}

/** A GitHub adapter whose details point at `body/<field>` for every tool that could take a body. */
export const githubAdapter: EnvelopeAdapter = createGithubAdapter({ bodyProperty: () => 'body' });
