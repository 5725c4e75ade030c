/**
 * The sandbox's base memory, in a module of its own: the server's main thread reads it to bound
 * its workers, and must not load the QuickJS module (only the workers run the sandbox).
 *
 * @packageDocumentation
 */

/**
 * The WebAssembly memory a QuickJS module starts with (16 MiB: its static data, its stack and the
 * start of its heap); a run's memory limit is granted on top of it.
 */
export const SANDBOX_BASE_MEMORY_BYTES = 16 * 1024 * 1024;
