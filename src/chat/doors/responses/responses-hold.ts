import type { FrontHoldInputs, WebSearchTool } from '../../admit/chat-admit.js';
import type { ResponsesRequest } from './responses-schema.js';

/** Hosted tools whose results join the input at sizes nobody knows before the call. */
const UNSIZED_TOOLS: ReadonlySet<string> = new Set(['web_search', 'web_search_preview', 'file_search', 'mcp', 'code_interpreter', 'computer_use_preview', 'computer', 'tool_search']);

/** Items and parts the upstream reads from stored files or the web. */
function readsStoredInput(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  if (typeof record.file_id === 'string' || typeof record.file_url === 'string') return true;
  return Object.values(record).some((child) => Array.isArray(child) && child.some(readsStoredInput));
}

/**
 * What a Responses request bills beyond its chat form when it is relayed as is: the
 * definitions of tools chat has no form for (custom tools and their grammars, hosted tools'
 * settings) count as text; hosted tools that add results of unknown size, and inputs the
 * upstream reads from stored files, hold the model's whole context window; each web search
 * tool may run the catalog's most searches per request.
 */
export function responsesHoldInputs(request: ResponsesRequest): FrontHoldInputs {
  const tools = request.tools ?? [];
  const extraTexts = tools.filter((t) => t.type !== 'function').map((t) => JSON.stringify(t));
  const webSearchTools: WebSearchTool[] = tools.flatMap((t, i) => (String(t.type).startsWith('web_search') ? [{ param: `tools.${i}`, maxUses: undefined }] : []));
  const unsized = tools.findIndex((t) => UNSIZED_TOOLS.has(String(t.type)));
  const items = Array.isArray(request.input) ? request.input : [];
  const stored = items.findIndex(readsStoredInput);
  const unboundedParam = unsized >= 0 ? `tools.${unsized}` : stored >= 0 ? `input.${stored}` : undefined;
  return {
    ...(extraTexts.length > 0 ? { extraTexts } : {}),
    ...(webSearchTools.length > 0 ? { webSearchTools } : {}),
    ...(unboundedParam !== undefined ? { unboundedParam } : {}),
  };
}
