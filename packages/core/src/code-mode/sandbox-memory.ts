/**
 * The memory of the Code Mode sandbox: a QuickJS module whose WebAssembly memory has a fixed
 * maximum, the only bound this build of QuickJS can enforce, and the count of the times it could
 * not grow.
 *
 * @packageDocumentation
 */
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC } from 'quickjs-emscripten';
import type { QuickJSWASMModule } from 'quickjs-emscripten';

import { SANDBOX_BASE_MEMORY_BYTES } from './sandbox-size.js';

export { SANDBOX_BASE_MEMORY_BYTES } from './sandbox-size.js';

/** The largest WebAssembly memory the module can address (2 GiB, what its allocator assumes). */
const MAX_MODULE_MEMORY_BYTES = 2 * 1024 * 1024 * 1024;

const WASM_PAGE_BYTES = 64 * 1024;

/** How a variant is customized (its memory, here). */
type VariantOptions = Parameters<typeof newVariant>[1];

/** The parts of a WebAssembly memory used here; this package's TypeScript library declares no WebAssembly values. */
interface GrowableMemory {
  readonly buffer: ArrayBufferLike;
  grow(pages: number): number;
}

interface WasmGlobal {
  readonly WebAssembly: {
    readonly Memory: new (descriptor: { initial: number; maximum: number }) => GrowableMemory;
  };
}

/** A loaded QuickJS module with a bounded memory. */
export interface BoundedModule {
  readonly module: QuickJSWASMModule;
  /** The memory limit of the runs it was sized for, in bytes. */
  readonly memoryBytes: number;
  /** How many times its memory could not grow (an allocation failed for want of memory). */
  failedGrows(): number;
  /** The size of its WebAssembly memory now, in bytes. */
  sizeBytes(): number;
}

/**
 * Loads a QuickJS module whose WebAssembly memory has a fixed maximum: the base plus
 * `memoryBytes`, at most 2 GiB. QuickJS's own `malloc_limit` cannot bound this build (its
 * allocator reports no usable size, so QuickJS counts a few bytes per allocation whatever its
 * size); the maximum can, since an allocation the memory cannot grow for fails inside QuickJS as
 * `out of memory`.
 *
 * @param memoryBytes - the memory limit of the runs, in bytes.
 * @returns the module.
 * @throws when the WebAssembly module cannot be loaded.
 */
export async function loadBoundedModule(memoryBytes: number): Promise<BoundedModule> {
  const maximum = Math.min(SANDBOX_BASE_MEMORY_BYTES + memoryBytes, MAX_MODULE_MEMORY_BYTES);
  const memory = new (globalThis as unknown as WasmGlobal).WebAssembly.Memory({
    initial: SANDBOX_BASE_MEMORY_BYTES / WASM_PAGE_BYTES,
    maximum: Math.ceil(maximum / WASM_PAGE_BYTES),
  });
  const counts = { failedGrows: 0 };
  const grow = memory.grow.bind(memory);
  // the module grows its memory through this object: a refused growth is an exhausted memory
  memory.grow = (pages) => {
    try {
      return grow(pages);
    } catch (error) {
      counts.failedGrows += 1;
      throw error;
    }
  };
  const options = { wasmMemory: memory } as unknown as VariantOptions;
  const module = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, options));
  return {
    module,
    memoryBytes,
    failedGrows: () => counts.failedGrows,
    sizeBytes: () => memory.buffer.byteLength,
  };
}
