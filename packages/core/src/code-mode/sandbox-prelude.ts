/**
 * The JavaScript that runs inside the QuickJS sandbox before the user's code, and the wrapper that
 * turns the user's code (the body of an async function) into a function expression.
 *
 * @packageDocumentation
 */

/** The file name QuickJS gives the user's code in stack traces and syntax errors. */
export const CODE_FILENAME = 'code.js';

/** The file name of the prelude, so that its frames are never mistaken for the user's code. */
export const PRELUDE_FILENAME = 'sandbox-prelude.js';

/** Lines the wrapper puts before the user's first line (its column numbers are unchanged). */
export const CODE_LINE_OFFSET = 1;

/**
 * Globals that hosts such as Node.js, Deno or browsers offer and the sandbox does not: touching
 * one (reading it, `typeof` included) ends the run with the `blocked_capability` limit naming it.
 * QuickJS has none of them; the prelude defines each as a getter so the attempt is reported
 * instead of surfacing as a bare ReferenceError.
 */
export const BLOCKED_GLOBALS: readonly string[] = [
  'require',
  'module',
  'exports',
  'process',
  'global',
  'Buffer',
  '__dirname',
  '__filename',
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'EventSource',
  'setTimeout',
  'setInterval',
  'setImmediate',
  'clearTimeout',
  'clearInterval',
  'clearImmediate',
  'Deno',
  'Bun',
  'importScripts',
];

/**
 * Wraps the user's code as an async function expression: one line before it, so that QuickJS's
 * line numbers are the user's plus {@link CODE_LINE_OFFSET}; a newline after it, so that a final
 * `//` comment cannot swallow the closing brace.
 *
 * @param code - the body of an async function.
 * @returns the source to evaluate under {@link CODE_FILENAME}.
 */
export function wrapUserCode(code: string): string {
  return `(async function () {\n${code}\n})`;
}

/**
 * The most UTF-16 code units of a thrown error's name, message and stack that cross to the host:
 * a thrown string of the whole memory limit is not copied out (the host cuts messages shorter).
 */
const MAX_DESCRIBED_CHARS = 8_000;

/**
 * The prelude: a function expression taking the host functions `hostCall(name, argsJson)` (a
 * promise of the outcome's JSON), `hostLog(text)` and `hostBlocked(name)`. It installs `callTool`,
 * `console` and the blocked-global getters (all non-configurable, so the code cannot swap them
 * for its own), and returns `{ runner, describe }`: `runner(fn)` awaits the user's function and
 * resolves with the JSON of its value; `describe(error)` answers the JSON of `{ name, message,
 * stack }` for anything thrown. Everything crossing to the host is a string, so no object of
 * either side is ever shared with the other.
 */
export const PRELUDE_SOURCE = `(function (hostCall, hostLog, hostBlocked) {
  'use strict';
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const ErrorClass = Error;
  const TypeErrorClass = TypeError;
  const ReferenceErrorClass = ReferenceError;
  const StringOf = String;
  const define = Object.defineProperty;
  const freeze = Object.freeze;
  const apply = Reflect.apply;
  const sliceString = String.prototype.slice;
  // cut with the captured slice: the code may have replaced String.prototype.slice by now
  const cut = (text, chars) => (text.length > chars ? apply(sliceString, text, [0, chars]) : text);
  const constant = (value) => ({ value, writable: false, enumerable: false, configurable: false });

  const callTool = async function callTool(name, args) {
    if (typeof name !== 'string') throw new TypeErrorClass('callTool(name, args): name must be a string');
    const json = args === undefined ? '{}' : stringify(args);
    if (typeof json !== 'string') throw new TypeErrorClass('callTool(name, args): args must be a JSON value');
    // made before the await, so that its stack points at the caller's line
    const failure = new ErrorClass('');
    const outcome = parse(await hostCall(name, json));
    if (typeof outcome.throw === 'string') {
      failure.message = outcome.throw;
      throw failure;
    }
    return outcome.value;
  };
  define(globalThis, 'callTool', constant(callTool));

  const show = (value) => {
    if (typeof value === 'string') return value;
    try {
      const json = stringify(value);
      return typeof json === 'string' ? json : StringOf(value);
    } catch {
      try { return StringOf(value); } catch { return '[unprintable]'; }
    }
  };
  // built with + on strings only: the code may have replaced Array.prototype.map and join
  const log = (...values) => {
    let line = '';
    for (let index = 0; index < values.length; index += 1) line += (index === 0 ? '' : ' ') + show(values[index]);
    hostLog(line);
  };
  define(globalThis, 'console', constant(freeze({ log, info: log, warn: log, error: log, debug: log })));

  for (const name of ${JSON.stringify(BLOCKED_GLOBALS)}) {
    define(globalThis, name, {
      get() {
        hostBlocked(name);
        throw new ReferenceErrorClass(name + ' is not available in the sandbox');
      },
      enumerable: false,
      configurable: false,
    });
  }

  const runner = async (fn) => {
    const value = await fn();
    let json;
    try {
      json = stringify(value === undefined ? null : value);
    } catch (error) {
      throw new TypeErrorClass('the return value is not JSON: ' + show(error && error.message));
    }
    return typeof json === 'string' ? json : 'null';
  };

  const describe = (error) => {
    try {
      if (error instanceof ErrorClass) {
        const name = cut(StringOf(error.name), ${MAX_DESCRIBED_CHARS});
        const message = cut(StringOf(error.message), ${MAX_DESCRIBED_CHARS});
        return stringify({ name, message, stack: cut(StringOf(error.stack ?? ''), ${MAX_DESCRIBED_CHARS}) });
      }
      return stringify({ name: '', message: 'the code threw a value that is not an Error: ' + cut(show(error), ${MAX_DESCRIBED_CHARS}), stack: '' });
    } catch {
      return '{"name":"","message":"the code threw a value that cannot be read","stack":""}';
    }
  };
  return { runner, describe };
})`;
