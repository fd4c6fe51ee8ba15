/**
 * Image generation and edits: input, estimates and answers; the work runs as queued jobs.
 * This file is the module's face: code outside the module imports from here only.
 */
export type { MultipartForm, UploadedFile } from './image-form.js';
export { parseEditRequest, parseGenerateRequest } from './image-schema.js';
export { imagesBody, type ImagesResponse } from './image-response.js';
export { editImages, generateImages, imageWorstCase } from './image-service.js';
export { EDIT_FILE_FIELDS, MAX_EDIT_IMAGES } from './image-uploads.js';
