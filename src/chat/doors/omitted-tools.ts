/** The response header that names the hosted tools a translated request left out. */
export const OMITTED_TOOLS_HEADER = 'x-farebox-omitted-tools';

/**
 * Hosted tools (web search, code execution, MCP, …) only run where the vendor runs them. When
 * a request is translated for a route of another kind, they are left out so the client's
 * turn still works with the tools it runs itself, and this header names them.
 */
export function omittedToolsHeader(types: readonly string[]): Record<string, string> {
  return { [OMITTED_TOOLS_HEADER]: [...new Set(types)].join(', ') };
}
