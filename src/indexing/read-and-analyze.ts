/**
 * The step a run and a dry run take alike for each file that changed by
 * its stat: read it, hash it, and analyse it unless the index holds that
 * content already. One function for both, so that a dry run counts what a
 * run would index. What the outcome means for the index (a failure to
 * record, a file to skip, elements to embed) is the caller's to decide.
 */
import type { AnalysisOutput } from '../analysis/analyzer.js';
import { isSkipped, type CodeFile, type SkippedFile } from '../analysis/types.js';
import { readRegularFile } from '../files/read.js';
import { redactSecrets } from '../files/redact.js';
import type { ScannedFile } from '../files/scan.js';
import type { FileRow } from '../store/rows.js';
import { type FileRead, readForIndex } from './file-read.js';
import type { FileAnalyzer } from './pool.js';

/** A file modified this close to being read may change again within the same mtime tick. */
const RACY_WINDOW_MS = 1_000;

/** The file as read. */
export interface FileContent {
  bytes: Buffer;
  hash: string;
  /** Modified too close to being read for its mtime to vouch for this content next time. */
  racy: boolean;
}

export type FileReading =
  /** Over the size limit: not read. */
  | { status: 'too-large'; skipped: SkippedFile }
  | { status: 'unreadable'; error: Error }
  /** The content the index holds already (and did not fail on): not analysed again. */
  | ({ status: 'same-content' } & FileContent)
  | ({ status: 'analysis-failed'; error: Error } & FileContent)
  /** Analysed and found nothing to index (binary, generated, too long a line). */
  | ({ status: 'skipped'; skipped: SkippedFile } & FileContent)
  /** `text` as analysis saw it: credentials redacted, line breaks kept. */
  | ({ status: 'analysed'; file: CodeFile; text: string } & FileContent);

/**
 * Reads, hashes and analyses one file; `row` is its indexed state, if any.
 * `analyzer` is read only when the content is new.
 */
export async function readAndAnalyze(
  scanned: ScannedFile,
  row: FileRow | undefined,
  analyzer: FileAnalyzer | undefined,
  maxBytes: number,
): Promise<FileReading> {
  if (scanned.size > maxBytes) {
    const detail = `${scanned.size} bytes, over the limit of ${maxBytes}`;
    return { status: 'too-large', skipped: { path: scanned.path, skipped: 'too-large', detail } };
  }
  // A file that failed last time is analysed again whatever its content.
  const knownHash = row && row.status !== 'failed' ? (row.hash ?? undefined) : undefined;
  const read = analyzer?.readAndAnalyze
    ? await analyzer.readAndAnalyze(scanned.absolutePath, scanned.path, knownHash)
    : await readForIndex(
        () => readRegularFile(scanned.absolutePath),
        (bytes) => analyzeWithText(analyzer!, scanned.path, bytes),
        knownHash,
      );
  return fileReading(read, scanned.mtimeMs);
}

/** What a file read for the index means for the run (on an analysis thread or on this one). */
function fileReading(read: FileRead, mtimeMs: number): FileReading {
  if (read.status === 'unreadable')
    return { status: 'unreadable', error: Object.assign(new Error(read.error.message), read.error) };
  const bytes = Buffer.from(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength);
  const content: FileContent = { bytes, hash: read.hash, racy: read.readAt - mtimeMs < RACY_WINDOW_MS };
  switch (read.status) {
    case 'same-content':
      return { status: 'same-content', ...content };
    case 'analysis-failed':
      return { status: 'analysis-failed', error: new Error(read.error), ...content };
  }
  const { result, text } = read.output;
  if (isSkipped(result)) return { status: 'skipped', skipped: result, ...content };
  return { status: 'analysed', file: result, text: text ?? redactSecrets(bytes.toString('utf8')), ...content };
}

/** An analysis and the text it read, from an analyzer that gives both, else the analysis alone. */
function analyzeWithText(analyzer: FileAnalyzer, path: string, bytes: Uint8Array): Promise<AnalysisOutput> {
  if (analyzer.analyzeWithText) return analyzer.analyzeWithText(path, bytes);
  return analyzer.analyzeBytes(path, bytes).then((result) => ({ result }));
}
