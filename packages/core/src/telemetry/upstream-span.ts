/**
 * The CLIENT span of one upstream HTTP exchange, a child of the call's span, after the
 * OpenTelemetry HTTP client conventions. Its URL has no user info, query or fragment: those are
 * where credentials and signatures travel, and no secret may reach a span. Implements
 * CONTRACT.md "OpenTelemetry".
 *
 * @packageDocumentation
 */
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Attributes, Span } from '@opentelemetry/api';

import { PACKAGE_VERSION } from '../envelope-builder.js';
import { UpstreamClientError, UpstreamHttpError } from '../errors.js';
import { SEMCONV, TELEMETRY_SCOPE } from './names.js';

/** `url` with user info, query and fragment removed, and its host and port; none for a URL that does not parse. */
function urlAttributes(url: string | URL, redact: (text: string) => string): Attributes {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {};
  }
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
  // some APIs carry the key in the path (bot and webhook URLs): the server's redactor knows its shapes
  const full = redact(`${parsed.protocol}//${parsed.host}${parsed.pathname}`);
  return { [SEMCONV.urlFull]: full, [SEMCONV.serverAddress]: parsed.hostname, [SEMCONV.serverPort]: port };
}

/**
 * Starts the span of an upstream exchange, named by its method, under the active context.
 *
 * @param method - the HTTP method, upper case.
 * @param url - the request URL.
 * @param redact - the server's text redaction, applied to `url.full` (a credential in the path).
 * @returns the started span (a no-op one when no SDK is registered).
 */
export function startUpstreamSpan(method: string, url: string | URL, redact: (text: string) => string): Span {
  const tracer = trace.getTracer(TELEMETRY_SCOPE, PACKAGE_VERSION);
  const span = tracer.startSpan(method, { kind: SpanKind.CLIENT }, context.active());
  if (span.isRecording()) span.setAttributes({ [SEMCONV.httpRequestMethod]: method, ...urlAttributes(url, redact) });
  return span;
}

/**
 * Ends an upstream span with the answer's status (an error from 400 on) or what the exchange threw:
 * an `UpstreamHttpError`'s status, an `UpstreamClientError`'s failure type (`timeout`, `network`,
 * `redirect`, `response_too_large`), else `_OTHER` (a cancelled call's abort).
 *
 * @param span - the span from {@link startUpstreamSpan}.
 * @param ended - the 2xx status the exchange answered with, or what it threw.
 */
export function endUpstreamSpan(span: Span, ended: { readonly status: number } | { readonly error: unknown }): void {
  if (span.isRecording()) {
    const status = 'status' in ended ? ended.status : statusOf(ended.error);
    if (status !== undefined) span.setAttribute(SEMCONV.httpResponseStatusCode, status);
    const errorType = errorTypeOf(status, ended);
    if (errorType !== undefined) {
      span.setAttribute(SEMCONV.errorType, errorType);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }
  span.end();
}

/** The HTTP status a thrown `UpstreamHttpError` carries. */
function statusOf(error: unknown): number | undefined {
  return UpstreamHttpError.isInstance(error) ? error.status : undefined;
}

/** `error.type`: the status from 400 on, a client failure's type, `_OTHER` for anything else thrown. */
function errorTypeOf(
  status: number | undefined,
  ended: { readonly status: number } | { readonly error: unknown },
): string | undefined {
  if (status !== undefined && status >= 400) return String(status);
  if (!('error' in ended)) return undefined;
  return UpstreamClientError.isInstance(ended.error) ? ended.error.failure.type : '_OTHER';
}
