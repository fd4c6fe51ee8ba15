import { createHash } from 'node:crypto';
import type { ChatMessage, ChatRequestBody, ChatTool, ToolCall } from '../chat/chat-types.js';
import { readReasoning } from '../chat/reasoning-options.js';
import { isRecord } from '../http/narrow.js';
import { readDirectives, stripDirectives, type LocalDirectives } from './local-chat-directives.js';
import { sampleFromSchema } from './local-chat-schema.js';

/** What the echo model answers, before it is split into deltas. */
export interface LocalReply {
  content: string | null;
  reasoning: string | undefined;
  toolCalls: ToolCall[] | undefined;
  finishReason: 'stop' | 'tool_calls';
  directives: LocalDirectives;
}

/** Longest piece of the prompt quoted back in reasoning and tool arguments. */
const QUOTE_LENGTH = 80;
/**
 * Most characters of the last user message the echo reads. Its answer is cut at 4,096
 * tokens anyway, which this many characters exceed for any text, so longer prompts change nothing
 * but the work spent on them.
 */
const MAX_ECHO_INPUT_CHARS = 1_048_576;

function textOf(content: ChatMessage['content']): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
}

function imageCount(message: ChatMessage | undefined): number {
  const content = message?.content;
  return Array.isArray(content) ? content.filter((part) => part.type === 'image_url').length : 0;
}

function lastOf(messages: readonly ChatMessage[], role: ChatMessage['role']): ChatMessage | undefined {
  return [...messages].reverse().find((m) => m.role === role);
}

function chosenTool(body: ChatRequestBody): ChatTool | undefined {
  const tools = body.tools ?? [];
  if (tools.length === 0 || body.tool_choice === 'none') return undefined;
  const choice = body.tool_choice;
  const fn = isRecord(choice) && isRecord(choice.function) ? choice.function : undefined;
  const wanted = typeof fn?.name === 'string' ? fn.name : undefined;
  return tools.find((t) => t.function.name === wanted) ?? tools[0];
}

function callId(seed: string): string {
  return `call_${createHash('sha256').update(seed).digest('hex').slice(0, 24)}`;
}

function jsonAnswer(body: ChatRequestBody, text: string): string | undefined {
  const format = body.response_format;
  if (format?.type === 'json_object') return JSON.stringify({ echo: text });
  if (format?.type === 'json_schema') return JSON.stringify(sampleFromSchema(format.json_schema.schema ?? {}, text));
  return undefined;
}

function textAnswer(last: ChatMessage | undefined, text: string): string {
  if (last?.role === 'tool') return `Tool result: ${text === '' ? '(empty)' : text}`;
  const images = imageCount(last);
  const seen = images === 0 ? '' : ` [${images} image${images === 1 ? '' : 's'} received]`;
  return `Echo: ${text === '' ? '(empty)' : text}${seen}`;
}

/**
 * Decides the echo model's deterministic answer: a tool call when tools are offered (and
 * not refused with `tool_choice: "none"`) in reply to a user; text built from a tool result
 * after a tool message; JSON for `response_format`; otherwise "Echo: <last user text>".
 */
export function planLocalReply(body: ChatRequestBody): LocalReply {
  const last = body.messages.at(-1);
  const lastUser = lastOf(body.messages, 'user');
  const input = textOf(lastUser?.content).slice(0, MAX_ECHO_INPUT_CHARS);
  const directives = readDirectives(input);
  const userText = stripDirectives(input);
  const lastText = last?.role === 'tool' ? textOf(last.content).slice(0, MAX_ECHO_INPUT_CHARS) : userText;
  const reasoning = readReasoning(body).enabled
    ? `The user wrote ${JSON.stringify(userText.slice(0, QUOTE_LENGTH))}; I will answer deterministically.`
    : undefined;
  const tool = last?.role === 'tool' ? undefined : chosenTool(body);
  if (tool !== undefined) {
    const args = JSON.stringify(sampleFromSchema(tool.function.parameters ?? { type: 'object' }, userText.slice(0, QUOTE_LENGTH)));
    const toolCalls: ToolCall[] = [{ id: callId(`${tool.function.name}:${args}`), type: 'function', function: { name: tool.function.name, arguments: args } }];
    return { content: null, reasoning, toolCalls, finishReason: 'tool_calls', directives };
  }
  const content = jsonAnswer(body, lastText) ?? textAnswer(last, lastText);
  return { content, reasoning, toolCalls: undefined, finishReason: 'stop', directives };
}
