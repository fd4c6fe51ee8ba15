import fc from 'fast-check';
import { agentFixtureRequests } from '../helpers/agents/agent-fixtures.js';
import { anyJson, bearer, contentType, jsonBody, model, request, text, type FuzzKeys, type FuzzRequest } from './fuzz-arbitraries.js';

/** What real coding agents sent (test/fixtures/agents/), the seeds the doors' fuzzing mutates. */
const recorded = agentFixtureRequests(['/v1/messages', '/v1/responses']).map((r) => ({ route: r.route, body: r.request.body as Record<string, unknown> }));

/** Hostile forms of the fields agents send: odd thinking, roles, tools, items and namespaces. */
const hostileField = fc.oneof(
  fc.record({ key: fc.constant('thinking'), value: fc.oneof(fc.record({ type: fc.constantFrom('adaptive', 'enabled', 'between_tools', '', 'x'), display: anyJson, budget_tokens: anyJson }, { requiredKeys: ['type'] }), anyJson) }),
  fc.record({ key: fc.constant('messages'), value: fc.array(fc.record({ role: fc.constantFrom('system', 'user', 'assistant', 'tool', ''), content: fc.oneof(text(80), fc.array(fc.record({ type: fc.constantFrom('text', 'document', 'tool_result', 'x'), text: anyJson }))) }), { maxLength: 4 }) }),
  fc.record({ key: fc.constant('tools'), value: fc.array(fc.oneof(fc.record({ type: fc.constantFrom('namespace', 'function', 'custom', 'web_search', 'mcp'), name: text(140), tools: fc.oneof(fc.array(anyJson, { maxLength: 3 }), anyJson) }), anyJson), { maxLength: 4 }) }),
  fc.record({ key: fc.constant('input'), value: fc.oneof(text(80), fc.array(fc.oneof(fc.record({ type: fc.constantFrom('additional_tools', 'function_call', 'custom_tool_call', 'message', 'web_search_call'), role: text(10), tools: anyJson, call_id: anyJson, name: anyJson, namespace: anyJson, content: anyJson }), anyJson), { maxLength: 4 })) }),
  fc.record({ key: fc.constantFrom('tool_choice', 'reasoning', 'output_config', 'metadata', 'max_tokens', 'max_output_tokens', 'stop_sequences', 'model'), value: anyJson }),
);

/** A recorded request, its model made a served one, with one field replaced by a hostile value. */
function mutatedRecording(route: string): fc.Arbitrary<unknown> {
  const seeds = recorded.filter((r) => r.route === route).map((r) => r.body);
  return fc.tuple(fc.constantFrom(...seeds), model, hostileField).map(([body, id, { key, value }]) => ({ ...body, model: id, stream: false, [key]: value }));
}

/**
 * `POST /v1/messages`, `/v1/responses` and their token counts, with the bodies real agents send
 * mutated field by field, plus wild JSON.
 */
export function agentDoorRequests(keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  const door = fc.constantFrom(
    { path: '/v1/messages?beta=true', route: '/v1/messages' },
    { path: '/v1/messages/count_tokens?beta=true', route: '/v1/messages' },
    { path: '/v1/responses', route: '/v1/responses' },
    { path: '/v1/responses/input_tokens', route: '/v1/responses' },
  );
  return door.chain(({ path, route }) =>
    fc
      .tuple(bearer(keys, ['funded', 'funded', 'freeTier', 'management']), jsonBody(fc.oneof({ weight: 4, arbitrary: mutatedRecording(route) }, { weight: 1, arbitrary: anyJson })), contentType)
      .map(([key, raw, type]) => request('POST', path, key, raw, type)),
  );
}
