/**
 * A handler's read of a 2xx upstream body (`context.readBody`): the body, unless the adapter's
 * `inBandFailure` says it reports a failure; then the call fails as an `upstream_http` failure of
 * the status of the same meaning, which the adapter classifies like any other. Implements
 * CONTRACT.md "In-band failures from the upstream".
 *
 * @packageDocumentation
 */
import type { FailedRequest, InBandVerdict } from './adapter.js';
import { UpstreamHttpError } from './errors.js';
import type { CallRecord } from './types.js';
import { headerRecord, readSuccessBody } from './upstream.js';

/** Whether a verdict's status is one a failure can have. */
function failureStatus(verdict: InBandVerdict): number {
  const status = verdict.status;
  if (Number.isInteger(status) && status >= 400 && status <= 599) return status;
  throw new TypeError(`inBandFailure returned status ${String(status)}; an in-band failure's status is 400-599`);
}

/**
 * The limiter learns from an in-band failure as from the status it stands for: an in-band
 * quota error drains the bucket as a 429 would.
 */
function recordInBandAnswer(call: CallRecord, status: number, body: unknown): void {
  call.upstreamStatus = status;
  const last = call.lastAnswer;
  if (last !== undefined) call.lastAnswer = { answer: { ...last.answer, status, body }, arrived: last.arrived };
}

/**
 * Reads a 2xx body as {@link readSuccessBody} does, then asks the call's adapter whether it
 * reports a failure.
 *
 * @param call - the call (its adapter judges; its limiter state learns from a failure).
 * @param response - a 2xx `Response` whose body has not been read.
 * @param request - the request that got it (what `context.fetch` sent); absent: `GET` of the
 *   response's URL.
 * @returns the parsed body, the text, or `{}` (see {@link readSuccessBody}), when it is data.
 * @throws UpstreamHttpError with `inBand: { status }` (the status that arrived) and the verdict's
 *   status, when the adapter judges the body a failure.
 * @throws UpstreamClientError as {@link readSuccessBody} does.
 * @throws TypeError when the adapter's verdict has a status outside 400-599 (the server's fault:
 *   an `internal_error` envelope and a log line).
 */
export async function readCallBody(
  call: CallRecord,
  response: Response,
  request: FailedRequest | undefined,
): Promise<unknown> {
  const body = await readSuccessBody(response);
  const judge = call.adapter.inBandFailure;
  if (judge === undefined || response.status < 200 || response.status > 299) return body;
  const headers = headerRecord(response.headers);
  const asked = request ?? { method: 'GET', url: response.url };
  const verdict = judge({ status: response.status, headers, body, request: asked });
  if (verdict === undefined) return body;
  const status = failureStatus(verdict);
  const failureBody = verdict.body ?? body;
  recordInBandAnswer(call, status, failureBody);
  throw new UpstreamHttpError({
    status,
    headers,
    body: failureBody,
    request: asked,
    inBand: { status: response.status },
  });
}
