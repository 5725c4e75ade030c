/**
 * What the official suite asks of a server besides tools, for a reference server started with
 * `--conformance-fixtures` (as `extendSdkServer`): the prompt its multi round-trip scenario gets
 * (`test_input_required_result_prompt`, which asks the client for context first) and empty
 * resource listings, so that every cacheable listing of protocol revision 2026-07-28 answers
 * (the SDK adds `ttlMs` and `cacheScope` to each).
 *
 * @packageDocumentation
 */
import type { SdkServer } from '@mcp-envelope/core';
import { acceptedContent, inputRequired, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { GetPromptResult, InputRequiredResult, ServerContext } from '@modelcontextprotocol/server';

/** The name of the one fixture prompt. */
export const OFFICIAL_SUITE_PROMPT_NAME = 'test_input_required_result_prompt';

function getPrompt(name: string, context: ServerContext): GetPromptResult | InputRequiredResult {
  if (name !== OFFICIAL_SUITE_PROMPT_NAME)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No prompt named "${name}"`);
  const answer = acceptedContent(context.mcpReq.inputResponses, 'user_context')?.['context'];
  if (typeof answer !== 'string')
    return inputRequired({
      inputRequests: {
        user_context: inputRequired.elicit({
          message: 'What context should the prompt use?',
          requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
        }),
      },
    });
  return {
    description: 'A prompt built from the context the client gave',
    messages: [{ role: 'user', content: { type: 'text', text: `Answer with this context in mind: ${answer}` } }],
  };
}

/**
 * Declares the prompts and resources capabilities on an SDK server and serves `prompts/list`
 * (the fixture prompt), `prompts/get`, and empty `resources/list` and `resources/templates/list`
 * (`resources/read` then answers -32602: there is no resource to read).
 *
 * @param server - an SDK server not yet connected (as `extendSdkServer` receives it).
 * @throws Error when the server is already connected (from the SDK).
 */
export function officialSuiteServerExtension(server: SdkServer): void {
  server.registerCapabilities({ prompts: {}, resources: {} });
  server.setRequestHandler('prompts/list', () => ({
    prompts: [
      { name: OFFICIAL_SUITE_PROMPT_NAME, description: 'Conformance fixture: asks for context, then answers.' },
    ],
  }));
  server.setRequestHandler('prompts/get', (request, context) => getPrompt(request.params.name, context));
  server.setRequestHandler('resources/list', () => ({ resources: [] }));
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }));
  server.setRequestHandler('resources/read', (request) => {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No resource at ${request.params.uri}`);
  });
}
