/** The part of a 2D context that text wrapping needs. */
export interface TextMeasurer {
  measureText(text: string): { width: number };
}

/**
 * Greedy word wrap to `maxWidth`, splitting words that are wider than a line on their own,
 * and stopping at `maxLines` (the last kept line ends with an ellipsis when text was cut).
 */
export function wrapText(ctx: TextMeasurer, text: string, maxWidth: number, maxLines: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of splitLongWords(ctx, text.split(/\s+/).filter(Boolean), maxWidth)) {
    const candidate = current === '' ? word : `${current} ${word}`;
    if (ctx.measureText(candidate).width <= maxWidth || current === '') {
      current = candidate;
      continue;
    }
    lines.push(current);
    current = word;
    if (lines.length === maxLines) break;
  }
  if (lines.length < maxLines && current !== '') lines.push(current);
  const used = lines.join(' ').length;
  if (lines.length === maxLines && used < text.trim().replace(/\s+/g, ' ').length) {
    lines[maxLines - 1] = `${lines[maxLines - 1] ?? ''}…`;
  }
  return lines;
}

function splitLongWords(ctx: TextMeasurer, words: string[], maxWidth: number): string[] {
  const out: string[] = [];
  for (const word of words) {
    if (ctx.measureText(word).width <= maxWidth) {
      out.push(word);
      continue;
    }
    let piece = '';
    for (const char of word) {
      if (piece !== '' && ctx.measureText(piece + char).width > maxWidth) {
        out.push(piece);
        piece = '';
      }
      piece += char;
    }
    if (piece !== '') out.push(piece);
  }
  return out;
}
