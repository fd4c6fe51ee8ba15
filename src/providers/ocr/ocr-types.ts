/** OCR types, shaped after Mistral's OCR API so clients written for it work unchanged. */

/** A document already fetched and decoded. */
export type OcrDocument =
  | { kind: 'pdf'; data: Buffer }
  | { kind: 'image'; data: Buffer; contentType: string };

/** Mistral's OCR request options, as the gateway accepts them. */
export interface OcrOptions {
  /** 0-based page indexes to process, ascending and distinct; absent = every page. */
  pages?: number[];
  /** Return extracted images as base64. */
  includeImageBase64?: boolean;
  /** Most images to extract. */
  imageLimit?: number;
  /** Smallest image (pixels per side) to extract. */
  imageMinSize?: number;
}

/** Input of an OCR call. */
export interface OcrCall {
  upstreamModel: string;
  document: OcrDocument;
  /** Request options; absent means Mistral's defaults (every page, no image data). */
  options?: OcrOptions;
  signal: AbortSignal;
}

/** One recognised page, in Mistral's response shape. */
export interface OcrPage {
  index: number;
  markdown: string;
  images: unknown[];
  dimensions: { dpi: number; height: number; width: number } | null;
}

/** Recognised pages and what they cost to process. */
export interface OcrResult {
  pages: OcrPage[];
  usage: { pagesProcessed: number; docSizeBytes: number };
}

/** The OCR capability of a provider. */
export interface OcrCapability {
  recognize(call: OcrCall): Promise<OcrResult>;
}
