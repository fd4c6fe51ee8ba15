import { isRecord, type JsonRecord } from '../providers/index.js';

/** Blocks whose `input` arrives as `input_json_delta` fragments (as Anthropic's SDK reads them). */
const INPUT_BLOCKS: ReadonlySet<unknown> = new Set(['tool_use', 'server_tool_use']);

/**
 * Whether a Messages answer ended normally, so it may be said again: it has a stop reason
 * (a stream cut before its message_delta has none) and that reason is not a refusal.
 */
export function messageEndedNormally(message: JsonRecord): boolean {
  return typeof message.stop_reason === 'string' && message.stop_reason !== 'refusal';
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * A Messages stream put back together into the message a non-streamed call answers, by the
 * rules of Anthropic's own SDK (MessageStream): message_start gives the message, each
 * content_block_start a block, deltas add text, citations, tool input JSON (parsed when its
 * block stops), thinking and its signature, and message_delta sets the stop reason and the
 * final usage (each counter it carries replaces the start's). What it cannot put back exactly
 * (an event out of order or unknown, an error, a block never stopped, tool input that is not
 * JSON) spoils it, and a spoiled stream, or one without message_stop, has no message.
 */
export class MessageAssembler {
  private message: JsonRecord | undefined;
  private usage: JsonRecord = {};
  private readonly content: JsonRecord[] = [];
  /** Blocks started and not yet stopped. */
  private readonly open = new Set<number>();
  /** Tool input JSON so far, by block index. */
  private readonly inputs = new Map<number, string>();
  private stopped = false;
  private spoiled = false;

  /** Reads one event as it was sent to the client. */
  add(event: unknown): void {
    if (this.spoiled) return;
    if (!isRecord(event) || !this.apply(event)) this.spoiled = true;
  }

  /** The whole message if the stream ended normally; otherwise undefined. */
  result(): JsonRecord | undefined {
    if (this.spoiled || !this.stopped || this.message === undefined || this.open.size > 0) return undefined;
    const message = { ...this.message, content: this.content, usage: this.usage };
    return messageEndedNormally(message) ? message : undefined;
  }

  private apply(event: JsonRecord): boolean {
    if (event.type === 'ping') return true;
    if (event.type === 'message_start') return this.start(event.message);
    // Nothing may come before the message or after its end (an error event included).
    if (this.message === undefined || this.stopped) return false;
    if (event.type === 'content_block_start') return this.startBlock(event);
    if (event.type === 'content_block_delta') return this.delta(event);
    if (event.type === 'content_block_stop') return this.stopBlock(event.index);
    if (event.type === 'message_delta') return this.end(event);
    if (event.type === 'message_stop') this.stopped = true;
    return this.stopped;
  }

  private start(message: unknown): boolean {
    if (this.message !== undefined || !isRecord(message) || !Array.isArray(message.content) || message.content.length > 0) return false;
    // Copies: the events are still to be written to the client as they are.
    this.message = { ...message };
    this.usage = isRecord(message.usage) ? { ...message.usage } : {};
    return true;
  }

  private startBlock(event: JsonRecord): boolean {
    // Deltas name their block by index: blocks must start in order for the indexes to hold.
    if (event.index !== this.content.length || !isRecord(event.content_block)) return false;
    this.open.add(this.content.length);
    this.content.push({ ...event.content_block });
    return true;
  }

  private delta(event: JsonRecord): boolean {
    const index = typeof event.index === 'number' ? event.index : -1;
    const block = this.content[index];
    const delta = event.delta;
    if (block === undefined || !this.open.has(index) || !isRecord(delta)) return false;
    if (delta.type === 'text_delta' && block.type === 'text' && typeof delta.text === 'string') block.text = text(block.text) + delta.text;
    else if (delta.type === 'citations_delta' && block.type === 'text' && delta.citation !== undefined) block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
    else if (delta.type === 'input_json_delta' && INPUT_BLOCKS.has(block.type) && typeof delta.partial_json === 'string') this.inputs.set(index, (this.inputs.get(index) ?? '') + delta.partial_json);
    else if (delta.type === 'thinking_delta' && block.type === 'thinking' && typeof delta.thinking === 'string') block.thinking = text(block.thinking) + delta.thinking;
    else if (delta.type === 'signature_delta' && block.type === 'thinking' && typeof delta.signature === 'string') block.signature = delta.signature;
    else return false;
    return true;
  }

  private stopBlock(index: unknown): boolean {
    if (typeof index !== 'number' || !this.open.delete(index)) return false;
    const json = this.inputs.get(index);
    const block = this.content[index];
    if (json === undefined || block === undefined) return true;
    this.inputs.delete(index);
    try {
      // As the SDK reads it: no fragments but empty ones is an empty input.
      block.input = json === '' ? {} : (JSON.parse(json) as unknown);
      return true;
    } catch {
      return false;
    }
  }

  private end(event: JsonRecord): boolean {
    const message = this.message;
    if (message === undefined || !isRecord(event.delta)) return false;
    for (const [field, value] of Object.entries(event.delta)) {
      // The SDK keeps the container of message_start unless the delta names one.
      if (field !== 'container' || (value !== null && value !== undefined)) message[field] = value;
    }
    const usage = isRecord(event.usage) ? event.usage : {};
    // Counters absent or null in the delta do not apply to it: the start's stand.
    for (const [field, value] of Object.entries(usage)) if (value !== null && value !== undefined) this.usage[field] = value;
    return true;
  }
}
