/**
 * The harness's preparation of a reference server before the official suite's scenarios: a real
 * SP server over Streamable HTTP on 127.0.0.1, against a loopback upstream replay.
 */
import { startAmazonReplay } from '@mcp-envelope/amazon/testing';
import { describe, expect, it } from 'vitest';

import { defaultServerCommand } from '../../src/gate/reference-servers.js';
import { startHttpServer, warmServer } from '../../src/mcp-suite/suite-process.js';
import { gated } from '../helpers/gate-servers.js';

describe('warmServer', () => {
  it('has a fresh server answer a tools/call with its tool_not_found envelope', async () => {
    const replay = await startAmazonReplay();
    try {
      const running = await startHttpServer(gated('sp'), defaultServerCommand(gated('sp')), replay);
      try {
        expect(await warmServer(running.url)).toBe('tool_not_found');
      } finally {
        await running.stop();
      }
    } finally {
      await replay.close();
    }
  }, 60_000);
});
