import { isRecord, type JsonRecord } from '../providers/index.js';

/** Whether a Responses answer ended normally, so it may be said again: `completed`, not incomplete or failed. */
export function responseEndedNormally(response: JsonRecord): boolean {
  return response.status === 'completed' && Array.isArray(response.output);
}

/**
 * A Responses stream's answer: `response.completed` carries the whole response object, as a
 * non-streamed call answers it. The stream is spoiled by an error, an incomplete or failed
 * end, any event after the completed one, or a completed response whose output does not hold
 * every item the stream announced (then it cannot stand for what the client was sent).
 */
export class ResponseAssembler {
  private response: JsonRecord | undefined;
  /** Output indexes the stream announced with `response.output_item.added`. */
  private readonly items = new Set<unknown>();
  private spoiled = false;

  /** Reads one event as it was sent to the client. */
  add(event: unknown): void {
    if (this.spoiled) return;
    if (!isRecord(event) || this.response !== undefined || event.type === 'error' || event.type === 'response.failed' || event.type === 'response.incomplete') {
      this.spoiled = true;
      return;
    }
    if (event.type === 'response.output_item.added') this.items.add(event.output_index);
    if (event.type === 'response.completed') {
      if (isRecord(event.response)) this.response = event.response;
      else this.spoiled = true;
    }
  }

  /** The whole response if the stream completed normally; otherwise undefined. */
  result(): JsonRecord | undefined {
    const response = this.response;
    if (this.spoiled || response === undefined || !responseEndedNormally(response)) return undefined;
    return (response.output as unknown[]).length === this.items.size ? response : undefined;
  }
}
