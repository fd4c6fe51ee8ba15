import type { ErrorBody } from '../../../platform/errors/index.js';
import type { ChunkPart } from '../chat-chunk-reader.js';
import type { NamedEvent, StreamTranslator } from '../stream-translator.js';
import {
  functionCallItem,
  incompleteReason,
  messageItem,
  reasoningItem,
  responseObject,
  responsesUsage,
  type ResponsesUsage,
  type ResponseShell,
} from './responses-output.js';

/** The output item being streamed right now. */
interface OpenItem {
  kind: 'reasoning' | 'message' | 'tool';
  outputIndex: number;
  id: string;
  text: string;
  toolIndex?: number;
  callId?: string;
  name?: string;
}

type Ev = NamedEvent;

/**
 * Translates the chat stream into the Responses API's typed events, in the documented order:
 * created, in_progress, then per output item added → (part added) → deltas → done, and
 * finally `response.completed` (usage with cost), `response.incomplete` or `response.failed`.
 */
export class ResponsesStreamTranslator implements StreamTranslator {
  private seq = 0;
  private open: OpenItem | undefined;
  private readonly output: Record<string, unknown>[] = [];
  private finish: string | undefined;
  private error: ErrorBody['error'] | undefined;
  private usage: ResponsesUsage | null = null;

  constructor(private readonly shell: ResponseShell) {}

  private numbered(events: Ev[]): NamedEvent[] {
    return events.map((event) => ({ ...event, sequence_number: this.seq++ }));
  }

  start(): NamedEvent[] {
    const response = responseObject(this.shell, { status: 'in_progress', output: [], usage: null });
    return this.numbered([{ type: 'response.created', response }, { type: 'response.in_progress', response }]);
  }

  part(part: ChunkPart): NamedEvent[] {
    if (part.kind === 'finish') this.finish = part.reason;
    else if (part.kind === 'error') this.error = part.error;
    else if (part.kind === 'usage') this.usage = responsesUsage(part.usage);
    else return this.numbered(this.content(part));
    return [];
  }

  end(): NamedEvent[] {
    const events = this.close();
    const incomplete = incompleteReason(this.finish);
    const status = this.error ? 'failed' : incomplete ? 'incomplete' : 'completed';
    const response = responseObject(this.shell, { status, output: this.output, usage: this.usage, error: this.error, incomplete });
    events.push({ type: `response.${status}`, response });
    return this.numbered(events);
  }

  private content(part: Extract<ChunkPart, { kind: 'reasoning' | 'text' | 'tool' }>): Ev[] {
    const wanted = part.kind === 'text' ? 'message' : part.kind;
    const sameTool = part.kind !== 'tool' || this.open?.toolIndex === part.index;
    const events = this.open?.kind === wanted && sameTool ? [] : [...this.close(), ...this.openItem(part)];
    const item = this.open;
    if (item === undefined) return events;
    const at = { item_id: item.id, output_index: item.outputIndex };
    if (part.kind === 'reasoning') {
      item.text += part.text;
      events.push({ type: 'response.reasoning_summary_text.delta', ...at, summary_index: 0, delta: part.text });
    } else if (part.kind === 'text') {
      item.text += part.text;
      events.push({ type: 'response.output_text.delta', ...at, content_index: 0, delta: part.text, logprobs: [] });
    } else if (part.args !== '') {
      item.text += part.args;
      events.push({ type: 'response.function_call_arguments.delta', ...at, delta: part.args });
    }
    return events;
  }

  private openItem(part: Extract<ChunkPart, { kind: 'reasoning' | 'text' | 'tool' }>): Ev[] {
    const outputIndex = this.output.length;
    const ids = this.shell.ids;
    if (part.kind === 'reasoning') {
      this.open = { kind: 'reasoning', outputIndex, id: ids.reasoning, text: '' };
      const at = { item_id: ids.reasoning, output_index: outputIndex, summary_index: 0 };
      return [
        { type: 'response.output_item.added', output_index: outputIndex, item: reasoningItem(ids, '') },
        { type: 'response.reasoning_summary_part.added', ...at, part: { type: 'summary_text', text: '' } },
      ];
    }
    if (part.kind === 'text') {
      this.open = { kind: 'message', outputIndex, id: ids.message, text: '' };
      return [
        { type: 'response.output_item.added', output_index: outputIndex, item: messageItem(ids, null, 'in_progress') },
        { type: 'response.content_part.added', item_id: ids.message, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } },
      ];
    }
    const id = ids.call(part.index);
    const callId = part.id ?? id;
    const name = part.name ?? '';
    this.open = { kind: 'tool', outputIndex, id, text: '', toolIndex: part.index, callId, name };
    return [{ type: 'response.output_item.added', output_index: outputIndex, item: functionCallItem(id, callId, this.shell.callName(name), '', 'in_progress') }];
  }

  /** Closes the open item: its done events, and the finished item joins the output. */
  private close(): Ev[] {
    const item = this.open;
    if (item === undefined) return [];
    this.open = undefined;
    const at = { item_id: item.id, output_index: item.outputIndex };
    const events: Ev[] = [];
    let done: Record<string, unknown>;
    if (item.kind === 'reasoning') {
      done = reasoningItem(this.shell.ids, item.text);
      events.push({ type: 'response.reasoning_summary_text.done', ...at, summary_index: 0, text: item.text });
      events.push({ type: 'response.reasoning_summary_part.done', ...at, summary_index: 0, part: { type: 'summary_text', text: item.text } });
    } else if (item.kind === 'message') {
      done = messageItem(this.shell.ids, item.text, 'completed');
      events.push({ type: 'response.output_text.done', ...at, content_index: 0, text: item.text, logprobs: [] });
      events.push({ type: 'response.content_part.done', ...at, content_index: 0, part: { type: 'output_text', text: item.text, annotations: [], logprobs: [] } });
    } else {
      const call = this.shell.callName(item.name ?? '');
      done = functionCallItem(item.id, item.callId ?? item.id, call, item.text, 'completed');
      events.push({ type: 'response.function_call_arguments.done', ...at, name: call.name, arguments: item.text });
    }
    this.output.push(done);
    events.push({ type: 'response.output_item.done', output_index: item.outputIndex, item: done });
    return events;
  }
}
