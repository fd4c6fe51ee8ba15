/**
 * Documents and images named by URL or data URL: fetched safely and sized.
 * This file is the module's face: code outside the module imports from here only.
 */
export { parseDataUrl } from './data-url.js';
export { fetchDocument, type FetchDocumentOptions } from './fetch-document.js';
