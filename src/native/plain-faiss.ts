/**
 * Index bytes that may come from anyone are parsed in a child process, never
 * in this one: plain FAISS files and buffers (no ocvector container, e.g.
 * written by Python's faiss.write_index), and, when the caller says the bytes
 * are untrusted, files in the container too (an index file that arrived with
 * a clone, a tarball or a cache: its checksum finds damage, not tampering,
 * since anyone can compute it).
 *
 * FAISS's parser and search code trust their input. Mutated files crashed the
 * process that read them (SIGSEGV while building an IDMap2's reverse map,
 * SIGFPE in a product quantizer with no sub-quantizers, an abort from a scalar
 * quantizer of unknown type inside a parallel search) or made it allocate
 * until the machine ran out of memory. A check made before FAISS sees the
 * bytes would have to re-implement FAISS's format for every FAISS release the
 * addon is built against, and would still trail it. So the bytes go where a
 * crash costs nothing:
 *
 *   1. a child Node process loads the same addon, caps its own memory growth
 *      (1 GiB plus 8 times the input), lets FAISS parse the bytes (a
 *      container's checksum verified first), checks the structure of what it
 *      built (native/src/index_io.cc: dimensions, counts, sizes, graph links,
 *      list contents; index types it does not check are refused) and runs a
 *      trial search;
 *   2. it hands the index back in the checksummed container (toBuffer), as
 *      FAISS serialises what it built;
 *   3. this process reads that container on its usual path, which checks the
 *      structure again.
 *
 * A crash, a timeout or a refusal in the child is a typed FaissError here;
 * this process never parses the bytes the child was given. The price is a
 * process start (about 0.1 s) and a copy of the index through a pipe, paid at
 * each read of such bytes: the store pays it once per file that it did not
 * write itself (vector-file.ts), and its next run writes one of its own.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { FaissError, type FaissErrorCode } from './errors.js';

/** The first bytes of the ocvector container (native/src/index_io.h). */
const CONTAINER_MAGIC = Buffer.from('OCVECIDX', 'latin1');

/** Memory the child may take beyond its start, whatever the input (FAISS, V8, a copy of the input). */
const BASE_MEMORY_ALLOWANCE = 1 << 30;
/** ... plus this many times the input: an index in memory is about its file's size, an IDMap2's reverse map a few times its ids. */
const MEMORY_PER_INPUT_BYTE = 8;
/** Default time the child may take: a minute, plus a minute per GiB to parse, check, search and copy back. */
const BASE_TIMEOUT_MS = 60_000;
const TIMEOUT_MS_PER_GIB = 60_000;
/** The child's stderr kept for a crash report (FAISS's last words). */
const STDERR_TAIL = 4_096;

export function hasContainerMagic(bytes: Uint8Array): boolean {
  return bytes.length >= CONTAINER_MAGIC.length && CONTAINER_MAGIC.equals(bytes.subarray(0, CONTAINER_MAGIC.length));
}

export type IndexFileKind = { kind: 'container' | 'plain'; size: number } | { kind: 'other' };

/**
 * Whether `path` is a regular file in the container, a regular file without
 * it, or something the addon reports on itself (missing, unreadable, a
 * directory, a FIFO: opened non-blocking, so a FIFO does not wait for a writer).
 */
export async function peekIndexFile(path: string): Promise<IndexFileKind> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return { kind: 'other' };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { kind: 'other' };
    const head = Buffer.alloc(CONTAINER_MAGIC.length);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return { kind: hasContainerMagic(head.subarray(0, bytesRead)) ? 'container' : 'plain', size: info.size };
  } catch {
    return { kind: 'other' };
  } finally {
    await handle.close().catch(() => {});
  }
}

function defaultTimeoutMs(bytes: number): number {
  return BASE_TIMEOUT_MS + Math.ceil((bytes / 2 ** 30) * TIMEOUT_MS_PER_GIB);
}

export type CheckInput = { path: string; size: number } | { bytes: Uint8Array };

export interface ChildCheck {
  /** The addon file this process loaded: the child loads the same one. */
  addonPath: string;
  /** Default a minute, plus a minute per GiB of input. */
  timeoutMs?: number | undefined;
}

/**
 * The child: plain CommonJS run with `node -e`, so it needs no file of its
 * own in the package and runs the same from src/ (tests) and dist/. It writes
 * one frame to fd 3: 'K' and the container, or 'E' and {code, message}.
 * Its stdout is ignored: nothing FAISS prints can be taken for the frame.
 */
const CHILD_SOURCE = `'use strict';
const net = require('node:net');
const [addonPath, source, path, allowance] = process.argv.slice(1);
const out = new net.Socket({ fd: 3, readable: false, writable: true });
function send(tag, body) {
  out.end(Buffer.concat([Buffer.from(tag, 'latin1'), body]), () => process.exit(0));
}
function fail(code, message) {
  send('E', Buffer.from(JSON.stringify({ code, message })));
}
async function stdinBytes() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks);
}
(async () => {
  let addon;
  try {
    addon = require(addonPath);
  } catch (e) {
    return fail('ADDON_LOAD_FAILED', 'the process that checks index files cannot load ' + addonPath + ': ' + e.message);
  }
  addon.capMemoryGrowth(Number(allowance));
  // One OpenMP thread: the trial search is small, and each thread's stack counts against the cap.
  addon.setNumThreads(1);
  const index = source === 'path'
    ? await addon.NativeIndex.read(path, 'cpu', true)
    : await addon.NativeIndex.fromBuffer(await stdinBytes(), 'cpu', true);
  if (index.ntotal > 0 && index.isTrained) {
    const info = index.info();
    const queries = new Float32Array(4 * info.dimension);
    for (let i = 0; i < queries.length; i++) queries[i] = Math.sin(i * 12.9898) * 0.5;
    // Every inverted list is visited (FAISS caps nprobe at the list count); HNSW
    // keeps the efSearch stored in the file, which a per-call value would overwrite.
    const nprobe = info.kind === 'ivf' ? 1 << 24 : undefined;
    try {
      await index.search(queries, Math.min(index.ntotal, 10), undefined, nprobe);
    } catch (e) {
      return fail('TRIAL_SEARCH', String(e && e.message));
    }
  }
  send('K', await index.toBuffer());
})().catch((e) => fail((e && e.code) || 'INTERNAL', String(e && e.message)));
`;

/**
 * Has the child parse and check an index, plain or in the container; resolves
 * with the same index in a container of the child's making, or rejects with a
 * FaissError.
 */
export function checkInChild(input: CheckInput, check: ChildCheck): Promise<Buffer> {
  const what = 'path' in input ? `index file ${input.path}` : 'index buffer';
  const inputBytes = 'path' in input ? input.size : input.bytes.byteLength;
  const allowance = BASE_MEMORY_ALLOWANCE + MEMORY_PER_INPUT_BYTE * inputBytes;
  const timeoutMs = check.timeoutMs ?? defaultTimeoutMs(inputBytes);
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '-e',
        CHILD_SOURCE,
        check.addonPath,
        'path' in input ? 'path' : 'stdin',
        'path' in input ? input.path : '',
        String(allowance),
      ],
      {
        stdio: ['path' in input ? 'ignore' : 'pipe', 'ignore', 'pipe', 'pipe'],
        windowsHide: true,
      },
    );
    const frame: Buffer[] = [];
    let stderr = '';
    let timedOut = false;
    let spawnError: Error | undefined;
    (child.stdio[3] as Readable).on('data', (chunk: Buffer) => frame.push(chunk));
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      stderr = (stderr + text).slice(-STDERR_TAIL);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      spawnError = error;
    });
    if (!('path' in input) && child.stdin) {
      child.stdin.on('error', () => {}); // EPIPE when the child ends early; its exit says why
      child.stdin.end(input.bytes);
    }
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (spawnError !== undefined) {
        reject(
          new FaissError(`cannot start the process that checks index files: ${spawnError.message}`, 'IO', {
            cause: spawnError,
          }),
        );
        return;
      }
      if (timedOut) {
        reject(
          new FaissError(
            `${what} was not checked within ${timeoutMs} ms (FAISS can loop on a damaged file); if it is a large index you trust, pass a larger plainFaissTimeoutMs`,
            'CORRUPT_INDEX',
          ),
        );
        return;
      }
      const bytes = Buffer.concat(frame);
      const tag = bytes.subarray(0, 1).toString('latin1');
      if (code === 0 && tag === 'K') resolve(bytes.subarray(1));
      else if (code === 0 && tag === 'E') reject(childError(what, bytes.subarray(1), allowance));
      else reject(crashError(what, code, signal, stderr));
    });
  });
}

function childError(what: string, body: Buffer, allowance: number): FaissError {
  let reported: { code?: string; message?: string };
  try {
    reported = JSON.parse(body.toString('utf8')) as { code?: string; message?: string };
  } catch {
    reported = {};
  }
  const message = reported.message ?? 'no reason given';
  switch (reported.code) {
    case 'IO':
    case 'CORRUPT_INDEX':
    case 'UNSUPPORTED':
    case 'ADDON_LOAD_FAILED':
      return new FaissError(message, reported.code as FaissErrorCode);
    case 'OUT_OF_MEMORY':
      // The sizes a damaged file announces, not the machine: the cap is far above what a valid index of this size needs.
      return new FaissError(
        `${what} is damaged: reading it asked for more than the ${Math.round(allowance / 2 ** 20)} MiB an index of its size can need`,
        'CORRUPT_INDEX',
      );
    case 'TRIAL_SEARCH':
      return new FaissError(`${what} is damaged: a trial search failed (${message})`, 'CORRUPT_INDEX');
    default:
      return new FaissError(`${what} could not be read (${reported.code ?? 'unknown'}: ${message})`, 'CORRUPT_INDEX');
  }
}

function crashError(what: string, code: number | null, signal: NodeJS.Signals | null, stderr: string): FaissError {
  const ending = signal !== null ? `ended with ${signal}` : `exited with code ${code}`;
  const lastWords = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .at(-1);
  return new FaissError(
    `${what} is damaged or not a FAISS index: FAISS crashed on it in the process that checks index files (${ending}${lastWords ? `: ${lastWords.slice(0, 200)}` : ''})`,
    'CORRUPT_INDEX',
  );
}
