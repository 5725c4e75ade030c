/**
 * Generic reading of upstream error responses: body parsing and status classification.
 *
 * @packageDocumentation
 */
export * from './parse.js';
export * from './status.js';
export * from './request.js';
export * from './client-failure.js';
