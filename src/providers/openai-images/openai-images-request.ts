import { FormData } from 'undici';
import type { ImageEditCall, ImageGenerateCall } from '../images/image-types.js';

/**
 * DALL·E models answer with URLs unless asked for base64 and reject the GPT-image-only
 * fields; GPT image models always answer in base64 and reject `response_format`.
 */
export function isDallEModel(upstreamModel: string): boolean {
  return upstreamModel.startsWith('dall-e');
}

/** The JSON body of POST /images/generations. */
export function toGenerationBody(call: ImageGenerateCall): Record<string, unknown> {
  const dallE = isDallEModel(call.upstreamModel);
  const body: Record<string, unknown> = { model: call.upstreamModel, prompt: call.prompt, n: call.n };
  if (call.size !== undefined) body['size'] = call.size;
  if (call.quality !== undefined) body['quality'] = call.quality;
  if (dallE) {
    body['response_format'] = 'b64_json';
  } else {
    if (call.background !== undefined) body['background'] = call.background;
    if (call.outputFormat !== undefined) body['output_format'] = call.outputFormat;
  }
  return body;
}

/**
 * The multipart body of POST /images/edits. GPT image models take several references as
 * repeated `image[]` parts; DALL·E 2 takes a single `image`. The form comes from the undici
 * package itself: the HTTP client serialises it, and Node's global FormData belongs to the
 * undici copy bundled with Node, which the package version cannot encode.
 */
export function toEditForm(call: ImageEditCall): FormData {
  const dallE = isDallEModel(call.upstreamModel);
  const form = new FormData();
  form.append('model', call.upstreamModel);
  form.append('prompt', call.prompt);
  form.append('n', String(call.n));
  const images = dallE ? call.images.slice(0, 1) : call.images;
  for (const image of images) {
    form.append(dallE ? 'image' : 'image[]', new Blob([image.data], { type: image.contentType }), image.filename);
  }
  if (call.mask !== undefined) {
    form.append('mask', new Blob([call.mask.data], { type: call.mask.contentType }), call.mask.filename);
  }
  if (call.size !== undefined) form.append('size', call.size);
  if (call.quality !== undefined) form.append('quality', call.quality);
  if (dallE) {
    form.append('response_format', 'b64_json');
  } else {
    if (call.background !== undefined) form.append('background', call.background);
    if (call.outputFormat !== undefined) form.append('output_format', call.outputFormat);
  }
  return form;
}
