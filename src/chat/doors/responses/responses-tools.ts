import { asKnownItem, type FunctionTool, type NamespaceTool, type ResponsesRequest, type ResponsesTool } from './responses-schema.js';

/** Joins a namespace and a tool name into one chat function name (chat has no namespaces). */
const SEPARATOR = '__';

/** A tool call's name as the Responses API reports it. */
export interface CallName {
  name: string;
  namespace?: string;
}

/** The request's tools as chat functions, and what a translation leaves out. */
export interface TranslatedTools {
  /** Chat function tools, namespaced ones under their joined name. */
  readonly functions: Record<string, unknown>[];
  /** Types of the tools left out (hosted tools, custom tools), in order, once each. */
  readonly omitted: string[];
  /** The Responses name of a chat function name this translation made. */
  callName(chatName: string): CallName;
}

/** The request's tools: its `tools`, then those `additional_tools` items add, in order. */
function requestTools(request: ResponsesRequest): ResponsesTool[] {
  const items = typeof request.input === 'string' ? [] : request.input;
  const added = items.flatMap((input) => {
    const item = asKnownItem(input);
    return item?.type === 'additional_tools' ? item.tools : [];
  });
  return [...(request.tools ?? []), ...added];
}

function isFunction(tool: ResponsesTool | { type?: string }): tool is FunctionTool {
  return tool.type === 'function' && 'name' in tool;
}

function chatFunction(tool: FunctionTool, name: string): Record<string, unknown> {
  return {
    type: 'function',
    function: { name, ...(tool.description ? { description: tool.description } : {}), ...(tool.parameters ? { parameters: tool.parameters } : {}) },
  };
}

/**
 * Maps Responses tools to chat functions: function tools as they are, the functions of a
 * namespace tool as `<namespace>__<name>` (calls map back to their name and namespace).
 * Tools only the vendor runs (web search, file search, code interpreter, image generation,
 * MCP, shell, apply_patch, computer use) and custom (free-form) tools have no function form:
 * they are left out, and the client's turn goes on with the tools it runs itself.
 */
export function translateTools(request: ResponsesRequest): TranslatedTools {
  const functions: Record<string, unknown>[] = [];
  const omitted = new Set<string>();
  const names = new Map<string, CallName>();
  for (const tool of requestTools(request)) {
    if (isFunction(tool)) functions.push(chatFunction(tool, tool.name));
    else if (tool.type === 'namespace') {
      const namespace = tool as NamespaceTool;
      for (const inner of namespace.tools) {
        if (!isFunction(inner)) {
          omitted.add(String(inner.type));
          continue;
        }
        const joined = `${namespace.name}${SEPARATOR}${inner.name}`;
        names.set(joined, { name: inner.name, namespace: namespace.name });
        functions.push(chatFunction(inner, joined));
      }
    } else omitted.add(String(tool.type));
  }
  return { functions, omitted: [...omitted], callName: (chatName) => names.get(chatName) ?? { name: chatName } };
}

/** The chat function name of a call the client reports back (with its namespace, if any). */
export function chatName(name: string, namespace: string | null | undefined): string {
  return namespace ? `${namespace}${SEPARATOR}${name}` : name;
}
