import { loadSharp } from '../platform/util/index.js';
import { GatewayError } from '../platform/errors/index.js';
import type { UploadedFile } from './image-form.js';
import type { BlobRef, PayloadInput } from '../queue/index.js';

/** Most reference images one edit may carry (gpt-image's limit). */
export const MAX_EDIT_IMAGES = 16;
/** File fields of an edit form, as the OpenAI SDK sends them. */
export const EDIT_FILE_FIELDS = ['image', 'image[]', 'mask'] as const;

const IMAGE_FORMATS = new Set(['png', 'jpeg', 'webp']);
const CONTENT_TYPES: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/** The reference images and mask of an edit, checked and ready to store beside the job. */
export interface EditUploads {
  images: BlobRef[];
  mask?: BlobRef;
  inputs: PayloadInput[];
}

/** Reads the image header: a PNG, JPEG or WebP with sane dimensions, else 400 on the field. */
async function checkImage(file: UploadedFile): Promise<string> {
  const sharp = await loadSharp();
  const invalid = new GatewayError('invalid_request', `File in field '${file.field}' is not a valid PNG, JPEG or WebP image.`, {
    param: file.field,
  });
  try {
    const meta = await sharp(file.data, { failOn: 'error' }).metadata();
    if (!meta.format || !IMAGE_FORMATS.has(meta.format) || !meta.width || !meta.height) throw invalid;
    return CONTENT_TYPES[meta.format] ?? file.contentType;
  } catch {
    throw invalid;
  }
}

/**
 * Splits an edit's files into reference images (`image`, `image[]`) and the optional `mask`,
 * and checks each is a real image, so bad uploads are a 400 before anything is held or queued.
 */
export async function checkEditUploads(files: readonly UploadedFile[]): Promise<EditUploads> {
  const images = files.filter((f) => f.field !== 'mask');
  const masks = files.filter((f) => f.field === 'mask');
  if (images.length === 0) throw new GatewayError('invalid_request', 'At least one image is required.', { param: 'image' });
  if (images.length > MAX_EDIT_IMAGES) {
    throw new GatewayError('invalid_request', `At most ${MAX_EDIT_IMAGES} images may be edited together.`, { param: 'image' });
  }
  if (masks.length > 1) throw new GatewayError('invalid_request', 'Only one mask may be given.', { param: 'mask' });
  const types = await Promise.all(files.map((f) => checkImage(f)));
  const typeOf = new Map(files.map((f, i) => [f, types[i] ?? f.contentType]));
  const ref = (file: UploadedFile, name: string): BlobRef => ({
    name,
    filename: file.filename,
    contentType: typeOf.get(file) ?? file.contentType,
    bytes: file.data.length,
  });
  const imageRefs = images.map((file, i) => ref(file, `image-${i}`));
  const mask = masks[0];
  const inputs = [...images.map((file, i) => ({ name: `image-${i}`, data: file.data })), ...(mask ? [{ name: 'mask', data: mask.data }] : [])];
  return { images: imageRefs, ...(mask ? { mask: ref(mask, 'mask') } : {}), inputs };
}
