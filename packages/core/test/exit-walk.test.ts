/**
 * The walk of a failing call's exit enters each module of src once. Every module of src is
 * loaded with its exports wrapped (functions, and the static methods of exported classes), and a
 * call into a module from another one is recorded; the caller is read from the stack, since a
 * class's own code calls its static methods through the same object. The record runs while
 * `callExit` runs (it is synchronous, so nothing else interleaves). Methods of values handed
 * around (the thrown error, the environment's adapter, redactor and logger) are no module entries
 * and are not recorded.
 *
 * A real SDK client calls a test server in memory; the upstream 404 comes over HTTP from a
 * loopback replay.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { startUpstreamReplay } from '@mcp-envelope/testing';
import type { UpstreamReplay } from '@mcp-envelope/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { Connected } from './fixtures/connect.js';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** One call into a module through an import: `call-exit.callExit`. */
type Entry = `${string}.${string}`;

/** What one failing call's exit did: who called `callExit`, and the entries while it ran. */
interface Walk {
  caller: string | undefined;
  entries: Entry[];
  recording: boolean;
  /** Classes whose static methods already record (index.ts re-exports the classes of errors.ts). */
  readonly recordedClasses: WeakSet<object>;
}

/** The src module a stack frame line points into (`call-pipeline`, `rate-limit/store`), if any. */
function moduleOfFrame(frame: string): string | undefined {
  const at = frame.indexOf(SRC);
  if (at === -1) return undefined;
  const path = frame.slice(at + SRC.length);
  return path.slice(0, path.indexOf('.ts'));
}

/** The src module that called the function whose wrapper is `wrapper`. */
function callerModule(wrapper: () => unknown): string | undefined {
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder, wrapper);
  const frames = (holder.stack ?? '').split('\n').slice(1);
  return frames.map(moduleOfFrame).find((module) => module !== undefined);
}

/**
 * `fn` of `module` recording each call from another module while the walk records; `callExit`
 * starts and ends the record.
 */
function recorded(
  fn: (...args: unknown[]) => unknown,
  module: string,
  entry: Entry,
  walk: Walk,
): (...args: unknown[]) => unknown {
  const isExit = entry === 'call-exit.callExit';
  const wrapper = function (this: unknown, ...args: unknown[]): unknown {
    if (isExit) {
      walk.caller = callerModule(wrapper);
      walk.entries = [];
      walk.recording = true;
    }
    if (walk.recording && callerModule(wrapper) !== module) walk.entries.push(entry);
    try {
      return fn.apply(this, args);
    } finally {
      if (isExit) walk.recording = false;
    }
  };
  return wrapper;
}

function isClass(value: unknown): value is abstract new (...args: never[]) => unknown {
  return typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value));
}

/** The module's exports with every function and static class method recording into `walk`. */
function recordedModule(exports: Record<string, unknown>, module: string, walk: Walk): Record<string, unknown> {
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(exports)) {
    if (isClass(value) && !walk.recordedClasses.has(value)) {
      walk.recordedClasses.add(value);
      for (const key of Object.getOwnPropertyNames(value)) {
        const member = (value as unknown as Record<string, unknown>)[key];
        if (typeof member !== 'function' || key === 'prototype') continue;
        const method = member as (...args: unknown[]) => unknown;
        Object.defineProperty(value, key, { value: recorded(method, module, `${module}.${name}.${key}`, walk) });
      }
      wrapped[name] = value;
    } else if (typeof value === 'function') {
      wrapped[name] = recorded(value as (...args: unknown[]) => unknown, module, `${module}.${name}`, walk);
    } else {
      wrapped[name] = value;
    }
  }
  return wrapped;
}

/** Every module of src, as paths relative to it without `.ts`. */
function srcModules(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => file.slice(0, -'.ts'.length));
}

/** The module each entry of a walk enters, in order. */
function modulesOf(entries: readonly Entry[]): string[] {
  return entries.map((entry) => entry.slice(0, entry.indexOf('.')));
}

describe('the exit walk of a failing call', () => {
  const walk: Walk = { caller: undefined, entries: [], recording: false, recordedClasses: new WeakSet() };
  let replay: UpstreamReplay;
  let session: Connected;

  beforeAll(async () => {
    for (const module of srcModules()) {
      vi.doMock(`${SRC}${module}.ts`, async (importOriginal: () => Promise<Record<string, unknown>>) =>
        recordedModule(await importOriginal(), module, walk),
      );
    }
    const { connectInMemory } = await import('./fixtures/connect.js');
    const { createTestServer } = await import('./fixtures/test-server.js');
    replay = await startUpstreamReplay({
      routes: [{ path: '/orders/missing', response: { status: 404, body: { errors: [{ message: 'Not found' }] } } }],
    });
    session = await connectInMemory(createTestServer());
  });

  afterAll(async () => {
    await session.close();
    await replay.close();
  });

  /** Calls `name` with `args` and returns the envelope's `error_code`; the walk is left in `walk`. */
  async function failingCall(name: string, args: Record<string, unknown>): Promise<unknown> {
    const result = await session.client.callTool({ name, arguments: args });
    expect(result.isError).toBe(true);
    return (result.structuredContent as Record<string, unknown>)['error_code'];
  }

  /** The exit of a thrown failure: classify reads the thrown value through errors.ts once. */
  const THROWN_WALK: readonly Entry[] = [
    'call-exit.callExit',
    'classify.classifyFailure',
    'errors.knownThrown',
    'envelope-builder.buildEnvelope',
  ];

  it('an upstream 404 goes call-pipeline -> call-exit -> classify -> errors -> effect-unknown -> envelope-builder', async () => {
    const code = await failingCall('fetch_upstream', { url: `${replay.url}/orders/missing` });
    expect(code).toBe('SP_API_HTTP_404');
    expect(walk.caller).toBe('call-pipeline');
    // after the adapter's verdict, classify asks once whether a retry is safe (CONTRACT.md "Safe retries")
    expect(walk.entries).toEqual([
      'call-exit.callExit',
      'classify.classifyFailure',
      'errors.knownThrown',
      'effect-unknown.withEffectUnknown',
      'envelope-builder.buildEnvelope',
    ]);
    expect(modulesOf(walk.entries)).toEqual(['call-exit', 'classify', 'errors', 'effect-unknown', 'envelope-builder']);
  });

  it('a validation error goes call-pipeline -> call-exit -> classify -> envelope-builder', async () => {
    const code = await failingCall('list_orders', { limit: 500 });
    expect(code).toBe('SCHEMA_REQUIRED');
    expect(walk.caller).toBe('call-pipeline');
    expect(walk.entries).toEqual(['call-exit.callExit', 'classify.classifyFailure', 'envelope-builder.buildEnvelope']);
  });

  it('an internal error takes the walk of a thrown failure, which enters no module twice', async () => {
    const code = await failingCall('explode', {});
    expect(code).toBe('INTERNAL_ERROR');
    expect(walk.caller).toBe('call-pipeline');
    expect(walk.entries).toEqual(THROWN_WALK);
    const modules = modulesOf(walk.entries);
    expect(new Set(modules).size).toBe(modules.length);
  });
});
