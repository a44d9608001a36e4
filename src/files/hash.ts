/** A file's content hash, as the index records it: what decides whether a file changed. */
import { createHash } from 'node:crypto';

export function contentHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 32);
}
