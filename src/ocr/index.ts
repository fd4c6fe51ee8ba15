/**
 * OCR: document input, estimates and the queued service.
 * This file is the module's face: code outside the module imports from here only.
 */
export { ocrCostOfPages } from './ocr-estimate.js';
export { ocrWorstCase, recognizeDocument } from './ocr-service.js';
