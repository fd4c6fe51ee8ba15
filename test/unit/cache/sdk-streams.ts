import { MessageStream } from '@anthropic-ai/sdk/lib/MessageStream';
import { accumulateResponse } from 'openai/lib/responses/ResponseAccumulator';
import { ResponseStream } from 'openai/lib/responses/ResponseStream';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';

/** Events as the SDKs' `fromReadableStream` reads them: one JSON document a line. */
function jsonLines(events: readonly unknown[]): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(events.map((event) => `${JSON.stringify(event)}\n`).join(''));
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

/** The message Anthropic's SDK puts together from `events` (MessageStream.finalMessage), as JSON, without the SDK's own `parsed_output`. */
export async function anthropicFinalMessage(events: readonly unknown[]): Promise<Record<string, unknown>> {
  const { parsed_output: _parsed, ...message } = await MessageStream.fromReadableStream(jsonLines(events)).finalMessage();
  return JSON.parse(JSON.stringify(message)) as Record<string, unknown>;
}

/** The response OpenAI's SDK puts together from `events` (ResponseStream.finalResponse), as JSON. */
export async function openAiFinalResponse(events: readonly unknown[]): Promise<Record<string, unknown>> {
  return JSON.parse(JSON.stringify(await ResponseStream.fromReadableStream(jsonLines(events)).finalResponse())) as Record<string, unknown>;
}

/** The response OpenAI's SDK has put together from `events` so far (its ResponseAccumulator), as JSON. */
export function openAiSnapshot(events: readonly unknown[]): Record<string, unknown> {
  let snapshot: ReturnType<typeof accumulateResponse> | undefined;
  for (const event of events) snapshot = accumulateResponse(event as ResponseStreamEvent, snapshot);
  return JSON.parse(JSON.stringify(snapshot)) as Record<string, unknown>;
}
