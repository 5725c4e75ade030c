/**
 * The tool-contract lockfile: writing it from the gated servers, comparing two of them, and
 * telling a breaking change from an additive one.
 *
 * @packageDocumentation
 */
export * from './compare.js';
export * from './lockfile.js';
export * from './live.js';
