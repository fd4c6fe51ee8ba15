/** One positioned run of text from a PDF text layer. */
export interface TextRun {
  str: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Line {
  y: number;
  height: number;
  runs: TextRun[];
}

/** Groups runs whose baselines are within half a glyph height into one line, top to bottom. */
function groupLines(runs: TextRun[]): Line[] {
  const sorted = [...runs].sort((a, b) => b.y - a.y || a.x - b.x);
  const lines: Line[] = [];
  for (const run of sorted) {
    const last = lines[lines.length - 1];
    if (last !== undefined && Math.abs(last.y - run.y) <= Math.max(last.height, run.height, 1) / 2) {
      last.runs.push(run);
      last.height = Math.max(last.height, run.height);
    } else {
      lines.push({ y: run.y, height: run.height, runs: [run] });
    }
  }
  return lines;
}

/** Joins a line's runs left to right, adding a space where the layout shows a gap. */
function lineText(line: Line): string {
  const runs = [...line.runs].sort((a, b) => a.x - b.x);
  let text = '';
  let end = Number.NEGATIVE_INFINITY;
  for (const run of runs) {
    const gap = run.x - end;
    if (text !== '' && gap > line.height * 0.15 && !text.endsWith(' ') && !run.str.startsWith(' ')) text += ' ';
    text += run.str;
    end = run.x + run.width;
  }
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Turns a page's text runs into markdown: one line of text per visual line, and a blank line
 * (a new paragraph) where the vertical gap is clearly wider than the line spacing.
 */
export function runsToMarkdown(runs: TextRun[]): string {
  const lines = groupLines(runs.filter((run) => run.str.trim() !== ''));
  const out: string[] = [];
  let previous: Line | undefined;
  for (const line of lines) {
    const text = lineText(line);
    if (text === '') continue;
    if (previous !== undefined && previous.y - line.y > Math.max(previous.height, line.height) * 1.8) out.push('');
    out.push(text);
    previous = line;
  }
  return out.join('\n');
}

/** Tidies OCR engine output: trims lines and collapses runs of blank lines into one. */
export function ocrTextToMarkdown(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
