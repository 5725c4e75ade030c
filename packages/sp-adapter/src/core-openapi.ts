/**
 * TEMPORARY bridge: core's index does not re-export `src/openapi` yet. Everything OpenAPI-related
 * is imported through this one file; when `@mcp-envelope/core` exports it, this file re-exports
 * from `@mcp-envelope/core` instead (or goes away).
 *
 * @packageDocumentation
 */
export { modelNameFromFileName, OperationConverter, uniqueOperationToolNames } from '../../core/dist/openapi/index.js';
export type { CollectionFormat, ConvertedOperation } from '../../core/dist/openapi/index.js';
