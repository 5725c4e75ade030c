import { describe, expect, it } from 'vitest';

import { MAX_SESSION_STATES, SessionStates } from '../src/adapter-entry.js';
import type { ToolHandlerContext } from '../src/index.js';

/** Only `request.sessionId` and `request.http.req` are read by SessionStates. */
function call(sessionId: string | undefined, httpRequest?: object): Pick<ToolHandlerContext, 'request'> {
  return {
    request: { sessionId, ...(httpRequest === undefined ? {} : { http: { req: httpRequest } }) },
  } as unknown as Pick<ToolHandlerContext, 'request'>;
}

describe('SessionStates', () => {
  it('keeps one state per session, each starting as create makes it; no session id is one more session', () => {
    const sessions = new SessionStates(() => ({ region: 'na' }));
    sessions.of(call('a')).region = 'eu';
    expect(sessions.of(call('a')).region).toBe('eu');
    expect(sessions.of(call('b')).region).toBe('na');
    expect(sessions.of(call(undefined)).region).toBe('na');
    sessions.of(call(undefined)).region = 'fe';
    expect(sessions.of(call(undefined)).region).toBe('fe');
    expect(sessions.size).toBe(3);
  });

  it('forgets the session unused the longest past the bound, never one in use', () => {
    const sessions = new SessionStates<{ id: number | undefined }>(() => ({ id: undefined }));
    sessions.of(call('old')).id = 7;
    sessions.of(call('busy')).id = 8;
    for (let index = 0; index < MAX_SESSION_STATES - 2; index += 1) sessions.of(call(`s${index}`));
    sessions.of(call('busy'));
    sessions.of(call('new'));
    expect(sessions.size).toBe(MAX_SESSION_STATES);
    expect(sessions.of(call('busy')).id).toBe(8);
    expect(sessions.of(call('old')).id).toBeUndefined();
  });

  it('takes a smaller bound', () => {
    const sessions = new SessionStates(() => ({ n: 0 }), 2);
    sessions.of(call('a')).n = 1;
    sessions.of(call('b')).n = 2;
    sessions.of(call('c')).n = 3;
    expect(sessions.size).toBe(2);
    expect(sessions.of(call('b')).n).toBe(2);
    expect(sessions.of(call('a')).n).toBe(0);
  });

  it('gives a Streamable HTTP request without a session a state of its own, for that request only', () => {
    const sessions = new SessionStates(() => ({ region: 'na' }));
    const [first, second] = [{}, {}];
    sessions.of(call(undefined, first)).region = 'eu';
    // the inner calls of one request share its state
    expect(sessions.of(call(undefined, first)).region).toBe('eu');
    expect(sessions.of(call(undefined, second)).region).toBe('na');
    // neither reaches the stdio client's state, nor counts as a session
    expect(sessions.of(call(undefined)).region).toBe('na');
    expect(sessions.size).toBe(1);
  });

  it('forgets the state of a session that ended', () => {
    const sessions = new SessionStates(() => ({ region: 'na' }));
    sessions.of(call('a')).region = 'eu';
    const { forget } = sessions;
    forget('a');
    expect(sessions.size).toBe(0);
    expect(sessions.of(call('a')).region).toBe('na');
  });

  it('refuses a bound that is not a positive integer', () => {
    for (const bound of [0, -1, 1.5, Number.NaN])
      expect(() => new SessionStates(() => ({}), bound)).toThrow(RangeError);
  });
});
