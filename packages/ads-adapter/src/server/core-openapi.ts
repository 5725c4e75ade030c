// TEMPORARY: core's index does not re-export src/openapi yet; switch to '@mcp-envelope/core' when it does.
export { apiDescriptionFormat, modelNameFromFileName, OperationConverter, uniqueOperationToolNames } from '../../../core/dist/openapi/index.js';
export type { CollectionFormat, OperationBody, OperationParameter } from '../../../core/dist/openapi/index.js';
