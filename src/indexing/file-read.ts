/**
 * Reading one file for the index, wherever it runs: read it, hash it, and analyse it unless its
 * content is the one the index holds. The analysis threads run it with a synchronous read
 * (worker.ts), the indexer's own thread with the promise API when it analyses a few files
 * itself. Either way the run's read stage (file-stages.ts) puts the answer in the file's record.
 */
import type { AnalysisOutput } from '../analysis/analyzer.js';
import { contentHash } from '../files/hash.js';

/**
 * What became of a file read for the index. From an analysis thread the bytes come back moved,
 * not copied, where the thread's buffer holds them alone: the indexer records where each line
 * lies in them.
 */
export type FileRead = { readAt: number } & (
  | { status: 'unreadable'; error: { message: string; code?: string } }
  | { status: 'same-content'; bytes: Uint8Array; hash: string }
  | { status: 'analysis-failed'; bytes: Uint8Array; hash: string; error: string }
  | { status: 'analysed'; bytes: Uint8Array; hash: string; output: AnalysisOutput }
);

/** Reads with `read`, and analyses with `analyze` unless the content hashes to `knownHash`. */
export async function readForIndex(
  read: () => Uint8Array | Promise<Uint8Array>,
  analyze: (bytes: Uint8Array) => Promise<AnalysisOutput>,
  knownHash: string | undefined,
): Promise<FileRead> {
  let bytes: Uint8Array;
  try {
    bytes = await read();
  } catch (error) {
    const { message, code } = error as NodeJS.ErrnoException;
    return { status: 'unreadable', readAt: Date.now(), error: code ? { message, code } : { message } };
  }
  const readAt = Date.now();
  const hash = contentHash(bytes);
  if (hash === knownHash) return { status: 'same-content', readAt, bytes, hash };
  try {
    return { status: 'analysed', readAt, bytes, hash, output: await analyze(bytes) };
  } catch (error) {
    return { status: 'analysis-failed', readAt, bytes, hash, error: (error as Error).message ?? String(error) };
  }
}
