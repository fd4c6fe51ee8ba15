/**
 * Test directives of the `local` echo model, written anywhere in the last user message:
 * - `[[local:slow=MS]]` waits MS milliseconds before each streamed delta (and per delta
 *   before a non-streamed answer), to exercise timeouts, disconnects and slot limits.
 * - `[[local:fail-after=N]]` raises `upstream_error` after N content deltas (a non-streamed
 *   call fails outright), to exercise mid-stream failures.
 * - `[[local:chunks=N]]` splits the answer into N content deltas (1..1000).
 * - `[[local:tool=NAME]]` calls the offered tool NAME; `[[local:tool]]` the first one offered.
 * Directives are removed from the echoed text.
 */
export interface LocalDirectives {
  slowMs: number;
  failAfter: number | undefined;
  chunks: number | undefined;
  /** The tool asked for: its name, '' for the first one offered, undefined when none is. */
  tool: string | undefined;
}

const DIRECTIVE = /\[\[local:([a-z-]+)=(\d+)\]\]/g;
const TOOL_DIRECTIVE = /\[\[local:tool(?:=([A-Za-z0-9_.-]{1,128}))?\]\]/g;
const MAX_SLOW_MS = 60_000;
const MAX_CHUNKS = 1000;

/** Reads the directives in a text. */
export function readDirectives(text: string): LocalDirectives {
  const out: LocalDirectives = { slowMs: 0, failAfter: undefined, chunks: undefined, tool: undefined };
  for (const match of text.matchAll(TOOL_DIRECTIVE)) out.tool = match[1] ?? '';
  for (const match of text.matchAll(DIRECTIVE)) {
    const value = Number(match[2]);
    if (match[1] === 'slow') out.slowMs = Math.min(MAX_SLOW_MS, value);
    else if (match[1] === 'fail-after') out.failAfter = value;
    else if (match[1] === 'chunks') out.chunks = Math.max(1, Math.min(MAX_CHUNKS, value));
  }
  return out;
}

/** The text without directives, whitespace tidied. */
export function stripDirectives(text: string): string {
  return text.replace(DIRECTIVE, ' ').replace(TOOL_DIRECTIVE, ' ').replace(/\s+/g, ' ').trim();
}
