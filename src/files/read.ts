/**
 * Reads a file that the scan listed as a regular file, refusing it if it is
 * not one any more: a FIFO put in its place between the scan and the read
 * would block the reading thread forever.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

export async function readRegularFile(path: string): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile())
      throw Object.assign(new Error(`${path} is no longer a regular file`), { code: 'EINVAL' });
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
