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
export * from './client.js';
