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

/** The last text part of a message: where a user's own words are (agents put context parts before it). */
function lastTextOf(message: ChatMessage | undefined): string {
  const content = message?.content;
  if (typeof content === 'string') return content;
  const texts = (content ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : []));
  return texts.at(-1) ?? '';
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** True when the words ask for the tool by name: "use get_weather", "call the Bash tool", "run lookup". */
function asksByName(words: string, name: string): boolean {
  return new RegExp(`\\b(?:use|call|run|invoke)\\s+(?:the\\s+)?${escapeRegExp(name)}(?![\\w-])`, 'i').test(words);
}

/**
 * The tool the echo model calls, if any. Like a real model in an agent loop it calls one only
 * when asked: `tool_choice` forcing a function (or `required`), a `[[local:tool=NAME]]`
 * directive (`[[local:tool]]`: the first tool), or the user's last words naming a tool after
 * "use", "call", "run" or "invoke". After a tool result it answers in text, so loops end.
 */
function chosenTool(body: ChatRequestBody, last: ChatMessage | undefined, directives: LocalDirectives, words: string): ChatTool | undefined {
  const tools = body.tools ?? [];
  if (tools.length === 0 || body.tool_choice === 'none' || last?.role === 'tool') return undefined;
  const choice = body.tool_choice;
  const fn = isRecord(choice) && isRecord(choice.function) ? choice.function : undefined;
  const forced = typeof fn?.name === 'string' ? fn.name : undefined;
  if (forced !== undefined) return tools.find((t) => t.function.name === forced);
  if (directives.tool !== undefined) return tools.find((t) => directives.tool === '' || t.function.name === directives.tool);
  if (choice === 'required') return tools[0];
  return tools.find((t) => asksByName(words, t.function.name));
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
 * Decides the echo model's deterministic answer: a tool call when the user's turn asks for
 * one (see chosenTool); text built from a tool result after a tool message; JSON for
 * `response_format`; otherwise "Echo: <last user text>".
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
  const tool = chosenTool(body, last, directives, stripDirectives(lastTextOf(lastUser)));
  if (tool !== undefined) {
    const args = JSON.stringify(sampleFromSchema(tool.function.parameters ?? { type: 'object' }, userText.slice(0, QUOTE_LENGTH)));
    const toolCalls: ToolCall[] = [{ id: callId(`${tool.function.name}:${args}`), type: 'function', function: { name: tool.function.name, arguments: args } }];
    return { content: null, reasoning, toolCalls, finishReason: 'tool_calls', directives };
  }
  const content = jsonAnswer(body, lastText) ?? textAnswer(last, lastText);
  return { content, reasoning, toolCalls: undefined, finishReason: 'stop', directives };
}
