import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** Streams a file through a hash; `encoding` picks hex (sha256 sums) or base64 (npm integrity). */
export async function hashFile(file: string, algorithm: 'sha256' | 'sha512', encoding: 'hex' | 'base64'): Promise<string> {
  const hash = createHash(algorithm);
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest(encoding);
}
