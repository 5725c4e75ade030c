/**
 * `@mcp-envelope/core/openapi`: API descriptions (Swagger 2.0, OpenAPI 3.x) -> tool input JSON
 * Schemas, tool names and requests. A separate entry point, so that only servers that convert
 * models load the converter.
 *
 * @packageDocumentation
 */
export {
  apiDescriptionFormat,
  buildOperationRequest,
  coerceJsonBody,
  modelNameFromFileName,
  OPERATION_METHODS,
  OperationConverter,
  rateLimitPlanFromDescription,
  toolAnnotationsForMethod,
  uniqueOperationToolNames,
} from './openapi/index.js';
export type { RateLimitPlan } from './rate-limit/store.js';
// the shape of a converted tool's input schema
export type { JsonSchema } from './output-schema.js';
export type {
  ApiDescriptionFormat,
  CollectionFormat,
  ConvertedOperation,
  MethodToolAnnotations,
  OperationBody,
  OperationConversionOptions,
  OperationMethod,
  OperationParameter,
  OperationRequest,
  OperationWireShape,
  ParameterLocation,
  ReferenceMode,
  ReferenceResolver,
  SchemaConversionOptions,
} from './openapi/index.js';
