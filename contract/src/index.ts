/**
 * `@mcp-envelope/contract`: the shapes every conforming MCP server and client share.
 *
 * @packageDocumentation
 */
export * from './taxonomy.js';
export type * from './envelope.js';
export * from './schemas.js';
export * from './validate.js';
export * from './capability.js';
export * from './migrations.js';
export * from './received-envelope.js';
export * from './client-errors.js';
export * from './client.js';
export { MAX_SCANNED_TEXT_LENGTH } from './json-scan.js';
