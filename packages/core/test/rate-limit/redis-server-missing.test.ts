// A machine without redis-server is told what to install, not shown a bare `spawn ENOENT`.
import { describe, expect, it } from 'vitest';

import { startRedisServer } from '@mcp-envelope/testing';

describe('startRedisServer without the executable', () => {
  it('rejects with an error naming the command and how to install it', async () => {
    const started = startRedisServer({ command: 'redis-server-not-installed-here' });
    await expect(started).rejects.toThrow(
      'redis-server-not-installed-here was not found on PATH; the Redis rate-limit tests and bench start a real one. Install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) or pass its path as options.command.',
    );
    await expect(started).rejects.toHaveProperty('cause.code', 'ENOENT');
  });
});
