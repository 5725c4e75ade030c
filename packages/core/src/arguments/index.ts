/**
 * The argument pipeline of `@mcp-envelope/core`: pre-flight normalization, strict JSON Schema
 * validation with `SCHEMA_*` codes, and hints. The server runtime imports only from here and from
 * `../hint-tables.js`.
 *
 * @packageDocumentation
 */
export { compileTool, injectedKeyword, unknownKeyOutcome } from './compile-tool.js';
export type { InjectedKeyword } from './compile-tool.js';
export { closestMatch, foldKey, orderByCloseness, similarityThreshold } from './did-you-mean.js';
export { ENUM_SUGGESTION_LIMIT } from './hints.js';
export { jsonTypeOf } from './json-type.js';
export type { UnknownKeyOutcome } from './normalize.js';
export { DRAFT_2020_12_URIS } from './prepare-schema.js';
export { VIOLATION_ORDER } from './schema-validation.js';
export type { ViolationCategory } from './schema-validation.js';
export type { ArgumentCheck, ArgumentPipelineOptions, CompiledTool, JsonSchemaObject } from './types.js';
