import type { ErrorBody } from '../../../platform/errors/index.js';
import type { ChunkPart } from '../chat-chunk-reader.js';
import type { NamedEvent, StreamTranslator } from '../stream-translator.js';
import { messagesUsage, stopReason, type MessagesUsage } from './messages-output.js';

/** The content block being streamed right now. */
interface OpenBlock {
  kind: 'thinking' | 'text' | 'tool_use';
  index: number;
  toolIndex?: number;
}

/** What the stream needs to know of its message. */
export interface MessageShell {
  id: string;
  model: string;
  /** Prompt tokens as counted at admission; the final count arrives in `message_delta`. */
  inputTokens: number;
}

/**
 * Translates the chat stream into Anthropic's Messages events: message_start, then per block
 * content_block_start → deltas → content_block_stop, then message_delta (stop reason and
 * usage with cost) and message_stop. An error after the stream started is reported with
 * the usage first, then Anthropic's `error` event.
 */
export class MessagesStreamTranslator implements StreamTranslator {
  private open: OpenBlock | undefined;
  private blocks = 0;
  private finish: string | undefined;
  private error: ErrorBody['error'] | undefined;
  private usage: MessagesUsage | undefined;

  constructor(private readonly shell: MessageShell) {}

  start(): NamedEvent[] {
    const usage = { input_tokens: this.shell.inputTokens, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const message = { id: this.shell.id, type: 'message', role: 'assistant', model: this.shell.model, content: [], stop_reason: null, stop_sequence: null, usage };
    return [{ type: 'message_start', message }];
  }

  part(part: ChunkPart): NamedEvent[] {
    if (part.kind === 'finish') this.finish = part.reason;
    else if (part.kind === 'error') this.error = part.error;
    else if (part.kind === 'usage') this.usage = messagesUsage(part.usage);
    else return this.content(part);
    return [];
  }

  end(): NamedEvent[] {
    const events = this.close();
    const usage = this.usage ?? { input_tokens: this.shell.inputTokens, output_tokens: 0 };
    events.push({ type: 'message_delta', delta: { stop_reason: stopReason(this.finish), stop_sequence: null }, usage });
    if (this.error !== undefined) events.push({ type: 'error', error: { ...this.error } });
    else events.push({ type: 'message_stop' });
    return events;
  }

  private content(part: Extract<ChunkPart, { kind: 'reasoning' | 'text' | 'tool' }>): NamedEvent[] {
    const wanted = part.kind === 'reasoning' ? 'thinking' : part.kind === 'text' ? 'text' : 'tool_use';
    const same = this.open?.kind === wanted && (part.kind !== 'tool' || this.open.toolIndex === part.index);
    const events = same ? [] : [...this.close(), this.openBlock(part)];
    const index = this.open?.index ?? 0;
    if (part.kind === 'reasoning') events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: part.text } });
    else if (part.kind === 'text') events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: part.text } });
    else if (part.args !== '') events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part.args } });
    return events;
  }

  private openBlock(part: Extract<ChunkPart, { kind: 'reasoning' | 'text' | 'tool' }>): NamedEvent {
    const index = this.blocks++;
    if (part.kind === 'reasoning') {
      this.open = { kind: 'thinking', index };
      return { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } };
    }
    if (part.kind === 'text') {
      this.open = { kind: 'text', index };
      return { type: 'content_block_start', index, content_block: { type: 'text', text: '' } };
    }
    this.open = { kind: 'tool_use', index, toolIndex: part.index };
    return { type: 'content_block_start', index, content_block: { type: 'tool_use', id: part.id ?? `toolu_${index}`, name: part.name ?? '', input: {} } };
  }

  private close(): NamedEvent[] {
    const block = this.open;
    if (block === undefined) return [];
    this.open = undefined;
    return [{ type: 'content_block_stop', index: block.index }];
  }
}
