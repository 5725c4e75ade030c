/**
 * The worker thread side of the sandbox runner: loads the sandbox once and runs one program at
 * a time, each inner `callTool` posted to the server's thread and answered from there. A program
 * that spins blocks this thread only, so the server keeps answering other requests.
 *
 * @packageDocumentation
 */
import { parentPort } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';

import { createSandbox } from './sandbox.js';
import type { InnerCallOutcome, SandboxLimits } from './sandbox.js';

/** From the server's thread: run a program, or answer one of its inner calls (the outcome's JSON). */
export type ToWorker =
  | { readonly type: 'run'; readonly code: string; readonly limits: SandboxLimits }
  | { readonly type: 'answer'; readonly call: number; readonly json: string };

/**
 * To the server's thread: the code started, an inner call, its cancellation, or the end of the
 * run with the size the sandbox's WebAssembly memory grew to, in bytes (it never shrinks).
 */
export type FromWorker =
  | { readonly type: 'started' }
  | { readonly type: 'call'; readonly call: number; readonly name: string; readonly argsJson: string }
  | { readonly type: 'cancel'; readonly call: number }
  | { readonly type: 'end'; readonly outcome: unknown; readonly memoryBytes: number }
  | { readonly type: 'failed'; readonly message: string };

/** `value` as JSON text, or `undefined` when it cannot be written (too deep for the stack). */
function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value ?? null);
  } catch {
    return undefined;
  }
}

function serve(port: MessagePort): void {
  const sandbox = createSandbox();
  const pending = new Map<number, (outcome: InnerCallOutcome) => void>();
  const counter = { next: 0 };
  const post = (message: FromWorker): void => {
    port.postMessage(message);
  };
  const callTool = (name: string, args: unknown, signal: AbortSignal): Promise<InnerCallOutcome> =>
    new Promise((resolve) => {
      // the arguments cross to the server's thread as JSON text: a structured clone the other
      // side cannot read (deep nesting) is dropped there without a word, and the call never answered
      const argsJson = jsonOf(args);
      if (argsJson === undefined) {
        resolve({ throw: `callTool(${JSON.stringify(name)}, args): args cannot be sent as JSON (nested too deeply?)` });
        return;
      }
      const call = counter.next++;
      // every call of a run shares the run's signal: an answered call takes its listener away
      const onAbort = (): void => {
        if (!pending.delete(call)) return;
        post({ type: 'cancel', call });
        resolve({ throw: 'the run ended before this call was answered' });
      };
      pending.set(call, (outcome) => {
        signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      });
      post({ type: 'call', call, name, argsJson });
      signal.addEventListener('abort', onAbort, { once: true });
    });
  port.on('message', (message: ToWorker) => {
    if (message.type === 'answer') {
      pending.get(message.call)?.(JSON.parse(message.json) as InnerCallOutcome);
      pending.delete(message.call);
      return;
    }
    sandbox
      .then(async (loaded) => {
        // the wall time starts now, QuickJS loaded: the server's watchdog counts from here too
        post({ type: 'started' });
        const outcome = await loaded.run(message.code, callTool, message.limits, new AbortController().signal);
        return { outcome, memoryBytes: loaded.memoryBytes() };
      })
      .then(
        ({ outcome, memoryBytes }) => {
          post({ type: 'end', outcome, memoryBytes });
        },
        (error: unknown) => {
          post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
        },
      );
  });
}

if (parentPort !== null) serve(parentPort);
