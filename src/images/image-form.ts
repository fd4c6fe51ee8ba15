/** One uploaded file, held in memory (the HTTP edge bounds each one's size). */
export interface UploadedFile {
  field: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

/** A parsed form: the last value of each text field, and the files in arrival order. */
export interface MultipartForm {
  fields: Record<string, string>;
  files: UploadedFile[];
}
