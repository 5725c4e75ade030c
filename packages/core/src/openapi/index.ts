/**
 * API descriptions (Swagger 2.0, OpenAPI 3.x) -> tool input JSON Schemas and tool names, shared
 * by the adapters that generate tools from official models.
 *
 * Decision: core resolves no `$ref` by itself and gains no dependency. An adapter either passes a
 * document already dereferenced, or a `resolveReference` callback backed by its reference library
 * (the SP and Ads adapters use `@apidevtools/json-schema-ref-parser`'s `$refs.get`). Following
 * references lazily through the callback converts only what the operations use, with a memo per
 * definition, which is much faster than dereferencing whole documents.
 *
 * @packageDocumentation
 */
export * from './schema.js';
export * from './operations.js';
export * from './tool-name.js';
export * from './request.js';
export { rateLimitPlanFromDescription } from './rate-limit-plan.js';
export { toolAnnotationsForMethod } from './annotations.js';
export type { MethodToolAnnotations } from './annotations.js';
