import type { FrontHoldInputs, WebSearchTool } from '../../admit/chat-admit.js';
import { isRecord } from '../../../providers/index.js';
import type { MessagesRequest } from './messages-schema.js';
import { isCustomTool } from './messages-to-chat.js';

/** Document sources the vendor fetches or looks up itself, so their size is unknown here. */
const REMOTE_SOURCES: ReadonlySet<string> = new Set(['url', 'file']);

/** A block (or a block inside a tool result) whose content the vendor fetches itself. */
function remoteBlock(block: unknown): boolean {
  if (!isRecord(block)) return false;
  if (block.type === 'container_upload') return true;
  if (block.type === 'document' && isRecord(block.source) && typeof block.source.type === 'string' && REMOTE_SOURCES.has(block.source.type)) return true;
  return Array.isArray(block.content) && block.content.some(remoteBlock);
}

function remoteBlockParam(request: MessagesRequest): string | undefined {
  for (const [i, message] of request.messages.entries()) {
    if (typeof message.content === 'string') continue;
    const j = message.content.findIndex(remoteBlock);
    if (j >= 0) return `messages.${i}.content.${j}`;
  }
  return undefined;
}

/**
 * What a Messages request bills beyond its chat form, for its hold: server tools (web search,
 * code execution, …) add results to the input that cannot be sized before the call, documents
 * given by URL or file id are fetched by the vendor, and MCP servers answer with content of
 * their own, so any of them holds the model's whole context window; each web search tool may
 * run up to its `max_uses` searches (else the catalog's most per request).
 */
export function messagesHoldInputs(request: MessagesRequest): FrontHoldInputs {
  const tools = request.tools ?? [];
  const serverTools = tools.map((tool, i) => ({ tool, i })).filter(({ tool }) => !isCustomTool(tool));
  const webSearchTools: WebSearchTool[] = serverTools
    .filter(({ tool }) => typeof tool.type === 'string' && tool.type.startsWith('web_search'))
    .map(({ tool, i }) => ({ param: `tools.${i}`, maxUses: typeof tool.max_uses === 'number' ? tool.max_uses : undefined }));
  const firstServerTool = serverTools[0];
  const unboundedParam =
    firstServerTool !== undefined ? `tools.${firstServerTool.i}` : (request as Record<string, unknown>).mcp_servers !== undefined ? 'mcp_servers' : remoteBlockParam(request);
  return { ...(unboundedParam !== undefined ? { unboundedParam } : {}), ...(webSearchTools.length > 0 ? { webSearchTools } : {}) };
}
