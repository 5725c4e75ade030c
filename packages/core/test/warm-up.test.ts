import { setImmediate as nextTurn } from 'node:timers/promises';

import { describe, expect, it } from 'vitest';

import { createPipelineCaches } from '../src/arguments/index.js';
import type { PipelineCaches } from '../src/arguments/index.js';
import { createWarmUp } from '../src/warm-up.js';

/** Real pipeline caches whose compiler records each meta-schema check it runs. */
function recordingCaches(): { caches: PipelineCaches; checked: unknown[] } {
  const caches = createPipelineCaches();
  const checked: unknown[] = [];
  const check = caches.compiler.metaSchemaProblem.bind(caches.compiler);
  caches.compiler.metaSchemaProblem = (schema) => {
    checked.push(schema);
    return check(schema);
  };
  return { caches, checked };
}

describe('warm-up on idle', () => {
  it('compiles the meta-schema once on the next turn after start, however often start is called', async () => {
    const { caches, checked } = recordingCaches();
    const warmUp = createWarmUp(caches);
    warmUp.start();
    warmUp.start();
    expect(checked).toEqual([]);
    await nextTurn();
    await nextTurn();
    expect(checked).toEqual([{}]);
    warmUp.start();
    await nextTurn();
    expect(checked).toEqual([{}]);
  });

  it('does nothing when cancelled before its turn (a server closed right after listing)', async () => {
    const { caches, checked } = recordingCaches();
    const warmUp = createWarmUp(caches);
    warmUp.start();
    warmUp.cancel();
    await nextTurn();
    await nextTurn();
    expect(checked).toEqual([]);
  });
});
