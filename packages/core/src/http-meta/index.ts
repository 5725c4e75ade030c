/**
 * Generic response-header rules every adapter shares (rate limit values, Retry-After, Warning).
 * Adapters supply only their header names.
 *
 * @packageDocumentation
 */
export * from './headers.js';
export * from './rate-limit.js';
export * from './warning.js';
export * from './response-meta.js';
