/**
 * Reads a file that the scan listed as a regular file, refusing it if it is
 * not one any more: a FIFO put in its place between the scan and the read
 * would block the reading thread forever.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';

export async function readRegularFile(path: string): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) throw notRegular(path);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * The same, blocking its thread: for an analysis thread, which reads its own
 * files (indexing/worker.ts). One open, stat, read and close, where the
 * promise API makes four trips through libuv's thread pool and back to the
 * calling thread's event loop, each waiting while that thread commits a batch.
 */
export function readRegularFileSync(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw notRegular(path);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

function notRegular(path: string): Error {
  return Object.assign(new Error(`${path} is no longer a regular file`), { code: 'EINVAL' });
}
