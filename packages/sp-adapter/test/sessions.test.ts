import { describe, expect, it } from 'vitest';

import { MAX_TRACKED_SESSIONS, SpSessions } from '../src/identity-tools.js';
import type { ToolHandlerContext } from '@mcp-envelope/core';

/** Only `request.sessionId` is read by SpSessions. */
function call(sessionId: string | undefined): ToolHandlerContext {
  return { request: { sessionId } } as unknown as ToolHandlerContext;
}

describe('SpSessions', () => {
  it('keeps one state per session, starting on the initial identity', () => {
    const sessions = new SpSessions(1);
    sessions.of(call('a')).identityId = 2;
    expect(sessions.of(call('a')).identityId).toBe(2);
    expect(sessions.of(call('b')).identityId).toBe(1);
    expect(sessions.of(call(undefined)).identityId).toBe(1);
  });

  it('forgets the session unused the longest past the bound, never one in use', () => {
    const sessions = new SpSessions(undefined);
    sessions.of(call('old')).identityId = 7;
    sessions.of(call('busy')).identityId = 8;
    for (let index = 0; index < MAX_TRACKED_SESSIONS - 2; index += 1) sessions.of(call(`s${index}`));
    sessions.of(call('busy'));
    sessions.of(call('new'));
    expect(sessions.of(call('busy')).identityId).toBe(8);
    expect(sessions.of(call('old')).identityId).toBeUndefined();
  });
});
