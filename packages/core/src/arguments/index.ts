/**
 * The argument pipeline of `@mcp-envelope/core`: pre-flight normalization, strict JSON Schema
 * validation with `SCHEMA_*` codes, and hints. The server runtime imports only from here and from
 * `../hint-tables.js`. Implements CONTRACT.md "Pre-flight normalization", "Strict unknown
 * fields", "Schema validation codes" and "Hints".
 *
 * @packageDocumentation
 */
export { compileTool, createPipelineCaches } from './compile-tool.js';
export { closestMatch, foldKey, similarityThreshold } from './did-you-mean.js';
export { ENUM_SUGGESTION_LIMIT } from './hints.js';
export { concealSecretValues } from './secret-values.js';
export type { EchoedValues } from './secret-values.js';
export { jsonTypeOf } from './json-type.js';
export { indexToolHistory, readToolHistory, staleCallEnvelope } from './tool-history.js';
export type { StaleProperties, ToolHistoryEntry } from './tool-history.js';
export { DRAFT_2020_12_URIS } from './prepare-schema.js';
export { VIOLATION_ORDER } from './schema-validation.js';
export type { ViolationCategory } from './schema-validation.js';
export type {
  ArgumentCheck,
  ArgumentPipelineOptions,
  CompiledTool,
  JsonSchemaObject,
  PipelineCaches,
} from './types.js';
