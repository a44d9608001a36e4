/**
 * The FAISS files of an embedded index on disk: their names
 * (`vectors-g<N>.ocvx`, the generation they reflect), which one the database
 * recorded and whether it is still as written, listing and removing them.
 * VectorIndex (vector-file.ts) decides when they are read and written.
 */
import { closeSync, constants, lstatSync, openSync, readdirSync, readSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { IndexStore } from './index-store.js';

const FILE_PATTERN = /^vectors-g(\d+)\.ocvx$/;
/** The container header's payload length and checksum (bytes 16 to 32): the file's identity. */
const IDENTITY_BYTES = [16, 32] as const;

/** The name of the file that reflects a generation. */
export function vectorFileName(generation: number): string {
  return `vectors-g${generation}.ocvx`;
}

/**
 * The index file this database wrote, when it is still there unchanged: a
 * regular file with the recorded header, not ahead of the database's
 * generation, and not from before a reset.
 */
export function usableFile(store: IndexStore): { generation: number; path: string; asWritten: boolean } | undefined {
  const [name, identity, written] = store.meta.vectorsFile.split(' ');
  const generation = Number(FILE_PATTERN.exec(name ?? '')?.[1] ?? Number.NaN);
  const rebuiltAt = store.meta.rebuiltAtGeneration;
  if (!(generation <= store.generation && generation >= rebuiltAt)) return undefined;
  const path = join(store.directory, name!);
  if (identity === undefined || fileIdentity(path) !== identity) return undefined;
  // Unchanged since its writer recorded its stat (a file written before the stat was recorded is not).
  return { generation, path, asWritten: written !== undefined && statIdentity(path) === written };
}

/**
 * What the database records of the file it wrote (meta `vectorsFile`): its
 * name, its container header's identity and its stat; undefined when the
 * file cannot be read back.
 */
export function fileRecord(path: string): string | undefined {
  const identity = fileIdentity(path);
  const written = statIdentity(path);
  return identity === undefined || written === undefined ? undefined : `${basename(path)} ${identity} ${written}`;
}

/** A file's size, modification time (ns) and inode: what changes when anything writes it. */
export function statIdentity(path: string): string | undefined {
  try {
    const stat = statSync(path, { bigint: true });
    return `${stat.size}:${stat.mtimeNs}:${stat.ino}`;
  } catch {
    return undefined;
  }
}

/** The identity bytes of a regular file's container header, as hex; undefined for anything else. */
export function fileIdentity(path: string): string | undefined {
  try {
    if (!lstatSync(path).isFile()) return undefined;
    // O_NONBLOCK: should the file have become a FIFO since, opening it does not wait for a writer.
    const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const header = Buffer.alloc(IDENTITY_BYTES[1]);
      if (readSync(fd, header, 0, header.length, 0) !== header.length || header.toString('latin1', 0, 8) !== 'OCVECIDX')
        return undefined;
      return header.subarray(...IDENTITY_BYTES).toString('hex');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** Removes an old index file (or whatever took its name); one that cannot be removed is left to the next checkpoint. */
export function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // a directory under that name, or no permission: it is never used, as it is not the recorded file
  }
}

/** The FAISS files in an index directory, oldest first. */
export function listVectorFiles(directory: string): { generation: number; path: string }[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return [];
  }
  return names
    .map((name) => ({ match: FILE_PATTERN.exec(name), name }))
    .filter((entry) => entry.match !== null)
    .map((entry) => ({ generation: Number(entry.match![1]), path: join(directory, entry.name) }))
    .sort((a, b) => a.generation - b.generation);
}
