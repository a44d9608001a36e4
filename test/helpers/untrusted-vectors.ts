/**
 * An index directory as an attacker ships it (issue 54, case 5): a vectors
 * file of the attacker's making, in the container with a checksum that
 * verifies, and the database's record of it made on the attacker's machine.
 * The record names the file and its header; its stat is that of the
 * attacker's copy, which the copy here cannot have (another inode, another
 * change time), whatever its modification time.
 */
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { fileRecord, usableFile, vectorFileName } from '../../src/store/embedded/vector-files.js';
import { type Isolated, runChild } from './isolated.js';
import { xxh64 } from './xxh64.js';

export const UNTRUSTED_FIXTURES = new URL('../fixtures/untrusted-vectors/', import.meta.url).pathname;

/** The ocvector container around a FAISS payload, its checksum computed as anyone can. */
export function container(payload: Uint8Array): Buffer {
  const header = Buffer.alloc(32);
  header.write('OCVECIDX', 0, 'latin1');
  header.writeUInt32LE(1, 8);
  header.writeBigUInt64LE(BigInt(payload.length), 16);
  header.writeBigUInt64LE(xxh64(payload), 24);
  return Buffer.concat([header, payload]);
}

/** The vectors file an index records now. */
export function recordedVectorFile(indexDir: string): string {
  const store = IndexStore.open(indexDir, { readonly: true });
  try {
    return usableFile(store)!.path;
  } finally {
    store.close();
  }
}

/**
 * Puts `bytes` in `indexDir` as its vectors file, recorded as the attacker's
 * machine recorded the file it made there; the modification time carried
 * over, as tar and cp -p do. Returns the file's path.
 */
export function plantVectorFile(indexDir: string, bytes: Uint8Array): string {
  const attacker = mkdtempSync(join(tmpdir(), 'ocvector-attacker-'));
  const store = IndexStore.open(indexDir);
  try {
    const name = vectorFileName(store.generation);
    const made = join(attacker, name);
    writeFileSync(made, bytes);
    const record = fileRecord(made)!;
    const path = join(indexDir, name);
    rmSync(path, { force: true }); // a clone writes a new file
    writeFileSync(path, bytes);
    const { atime, mtime } = statSync(made);
    utimesSync(path, atime, mtime);
    store.transaction(() => {
      store.meta.vectorsFile = record;
    });
    return path;
  } finally {
    store.close();
    rmSync(attacker, { recursive: true, force: true });
  }
}

const ROOT = new URL('../../', import.meta.url).pathname;
const VICTIM = `${ROOT}test/security/untrusted-vectors-child.ts`;

/**
 * Runs test/security/untrusted-vectors-child.ts (the sources, through
 * vite-node) in a child process: a crash is its signal, not this process's end.
 */
export function runVictim(args: readonly string[], timeout = 90_000): Promise<Isolated> {
  return runChild([`${ROOT}node_modules/vite-node/vite-node.mjs`, VICTIM, ...args], { timeout });
}

/** The JSON lines a victim printed. */
export function linesOf(run: Isolated): Record<string, unknown>[] {
  return run.stdout
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
