/**
 * `@mcp-envelope/core/openapi`: API descriptions (Swagger 2.0, OpenAPI 3.x) -> tool input JSON
 * Schemas, tool names and requests. A separate entry point, so that only servers that convert
 * models load the converter.
 *
 * @packageDocumentation
 */
export * from './openapi/index.js';
