import { countPiece, dataUrlDimensions, imageTokenBound, promptTexts, sumPieces } from '../../billing/index.js';
import type { ChatRequestBody } from '../../providers/index.js';
import type { AdmittedChat } from '../admit/chat-admit.js';

/**
 * The input tokens of a request as vendors count them: OpenAI's chat framing (3 tokens a
 * message with its role and name, 3 priming the reply) around the o200k count of every text
 * the upstream bills (messages, tool calls, tool definitions, a response schema), and images by
 * their vendors' size formulas. o200k is the vendor's own tokenizer for OpenAI's models, and
 * the project's count for the others. Unlike the admission count it adds none of the
 * allowances that let a hold cover every vendor (16 tokens a request, 8 a message, 600 for tools).
 */
export async function vendorPromptTokens(body: ChatRequestBody): Promise<number> {
  const { texts, framing, imageUrls } = promptTexts(body.messages);
  for (const tool of body.tools ?? []) texts.push(JSON.stringify(tool.function));
  if (body.response_format !== undefined && body.response_format.type !== 'text') texts.push(JSON.stringify(body.response_format));
  const images = imageUrls.reduce((sum, url) => sum + imageTokenBound(dataUrlDimensions(url)), 0);
  return framing + images + (await sumPieces(texts, countPiece));
}

/**
 * The input of a leg cut off before its upstream reported usage, counted as its vendor counts
 * it (see vendorPromptTokens), never above the admission count. An input admission could not
 * size (a document by URL, a stored conversation) is counted at the whole context window
 * there, and this count, which sees only the request's chat form, would miss it: that figure
 * is kept.
 */
export async function cutLegPromptTokens(admitted: AdmittedChat): Promise<number> {
  const admission = await admitted.promptTokens();
  const window = admitted.model.doc.context_length;
  if (window !== null && admission >= window) return admission;
  return Math.min(admission, await vendorPromptTokens(admitted.body));
}
