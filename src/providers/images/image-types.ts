/** Image generation and edit types shared by the queue path and image adapters. */

/** One input image file (edits). */
export interface ImageFile {
  data: Buffer;
  filename: string;
  contentType: string;
}

/** Input of an image generation. */
export interface ImageGenerateCall {
  upstreamModel: string;
  prompt: string;
  n: number;
  size?: string;
  quality?: string;
  background?: string;
  outputFormat?: 'png' | 'jpeg' | 'webp';
  signal: AbortSignal;
}

/** Input of an image edit: the generation fields plus reference images and a mask. */
export interface ImageEditCall extends ImageGenerateCall {
  images: ImageFile[];
  mask?: ImageFile;
}

/** What was consumed, in the units the catalog prices. */
export interface ImageUsage {
  images: number;
  textInputTokens: number;
  imageInputTokens: number;
  imageOutputTokens: number;
}

/** Generated images as base64 plus usage. */
export interface ImageResult {
  images: Array<{ b64_json: string; revised_prompt?: string }>;
  usage: ImageUsage;
}

/** The image capability of a provider. */
export interface ImagesCapability {
  generate(call: ImageGenerateCall): Promise<ImageResult>;
  edit(call: ImageEditCall): Promise<ImageResult>;
}
