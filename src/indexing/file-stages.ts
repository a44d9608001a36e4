/**
 * The stages one file goes through in a run, each a plain function that fills its part of the
 * file's record (file-record.ts): read, analyse, embed. The run then writes the record
 * (IndexRun.write). A dry run takes the same read stage and the same documents (dry-run.ts),
 * so that it counts what a run would index; it neither asks a model nor embeds.
 */
import type { AnalysisOutput } from '../analysis/analyzer.js';
import { isSkipped, type SkippedFile } from '../analysis/types.js';
import { LineStarts } from '../files/line-starts.js';
import { readRegularFile } from '../files/read.js';
import { redactSecrets } from '../files/redact.js';
import type { ScannedFile } from '../files/scan.js';
import { UNTRUSTED_MTIME } from '../store/rows.js';
import { callLines, wordOccurrences } from '../text/occurrences.js';
import { buildDocuments } from '../vector/document.js';
import { type FileRead, readForIndex } from './file-read.js';
import { type FileRecord, newFileRecord } from './file-record.js';
import type { IndexRun } from './index-run.js';
import type { FileAnalyzer } from './pool.js';

/** A file modified this close to being read may change again within the same mtime tick. */
const RACY_WINDOW_MS = 1_000;

/**
 * One file in a real run: read, analysed and embedded, for the run to write. A file that
 * cannot be read or analysed is settled as failed (and said so), never an error.
 */
export async function indexFile(run: IndexRun, scanned: ScannedFile): Promise<FileRecord> {
  const record = newFileRecord(scanned, run.known.get(scanned.path));
  await readFile(record, run.analyzer, run.maxBytes);
  if (record.change === 'skipped') {
    const { path, skipped, detail } = record.skipped!;
    run.emit({ type: 'file-skipped', path, reason: skipped, detail });
  } else if (record.change === 'failed') run.emit({ type: 'file-failed', path: scanned.path, error: record.error! });
  if (!record.code) return record;
  await analyzeFile(record, run);
  await embedFile(record, run);
  return record;
}

/**
 * Read: the file's bytes and their hash, and unless the index holds that content already, its
 * analysis by syntax (on the analysis thread that read it, so that the bytes cross between
 * threads once). Settles a file over `maxBytes`, one that cannot be read, the content the
 * index holds (unchanged), and one the analysis failed on or skipped. `analyzer` is asked only
 * when the content is new.
 */
export async function readFile(
  record: FileRecord,
  analyzer: FileAnalyzer | undefined,
  maxBytes: number,
): Promise<void> {
  const { scanned, row } = record;
  if (scanned.size > maxBytes) {
    const detail = `${scanned.size} bytes, over the limit of ${maxBytes}`;
    skip(record, { path: scanned.path, skipped: 'too-large', detail });
    return;
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
  fillRead(record, read);
}

/** The read's answer (from an analysis thread or this one) in the record. */
function fillRead(record: FileRecord, read: FileRead): void {
  if (read.status === 'unreadable') {
    fail(record, `cannot read the file: ${read.error.message}`);
    return;
  }
  // Modified too close to being read for its mtime to vouch for this content next time: re-hashed then.
  if (read.readAt - record.scanned.mtimeMs < RACY_WINDOW_MS) record.mtimeMs = UNTRUSTED_MTIME;
  record.hash = read.hash;
  if (read.status === 'same-content') {
    record.change = 'unchanged';
    return;
  }
  if (read.status === 'analysis-failed') {
    fail(record, `analysis failed: ${read.error}`);
    return;
  }
  const { result, text } = read.output;
  if (isSkipped(result)) {
    skip(record, result);
    return;
  }
  const bytes = Buffer.from(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength);
  record.code = result;
  record.text = text ?? redactSecrets(bytes.toString('utf8'));
  record.lineStarts = new LineStarts(bytes);
}

/**
 * Analyse: the model's descriptions of the elements the syntax tree found (when a model is
 * asked), then the documents, and the words and their lines for references.
 */
export async function analyzeFile(record: FileRecord, run: IndexRun): Promise<void> {
  if (run.enricher && record.code!.source === 'ast') {
    record.code = await run.enricher.enrich(record.code!, record.text!);
    // A file whose model call the abort cut off has the syntax tree's analysis alone: recorded, it
    // would count as indexed and never be asked about again. Left out, the next run asks the
    // model about it, and the answers that came before the abort are in the cache.
    run.signal?.throwIfAborted();
  }
  const code = record.code!;
  record.language = code.language;
  addDocuments(record);
  record.occurrences = wordOccurrences(record.text!, callLines(code.calls));
}

/** The documents of a file read and analysed: one per element, and per chunk of code outside them. */
export function addDocuments(record: FileRecord): void {
  record.documents = buildDocuments(record.code!, record.text!.split('\n'));
}

/** Embed: vectors for the documents the index does not hold yet (a cached vector is taken, not made). */
export async function embedFile(record: FileRecord, run: IndexRun): Promise<void> {
  record.vectors = await run.queue.vectorsFor(needingVectors(record.documents, run.liveCopies(record.row)));
}

/**
 * The documents that need a vector: all but those the file already has, copy
 * for copy, as the store pairs them (element-plan.ts). A further copy of a
 * document is a new element, and needs one too: the store may keep its
 * vector only under the element it has (vector-file.ts).
 */
function needingVectors<D extends { hash: string }>(documents: readonly D[], live: Map<string, number>): D[] {
  return documents.filter((document) => {
    const copies = live.get(document.hash) ?? 0;
    if (copies === 0) return true;
    live.set(document.hash, copies - 1);
    return false;
  });
}

function skip(record: FileRecord, file: SkippedFile): void {
  record.change = 'skipped';
  record.skipped = file;
  record.error = `${file.skipped}: ${file.detail}`;
}

function fail(record: FileRecord, error: string): void {
  record.change = 'failed';
  record.error = error;
}

/** An analysis and the text it read, from an analyzer that gives both, else the analysis alone. */
function analyzeWithText(analyzer: FileAnalyzer, path: string, bytes: Uint8Array): Promise<AnalysisOutput> {
  if (analyzer.analyzeWithText) return analyzer.analyzeWithText(path, bytes);
  return analyzer.analyzeBytes(path, bytes).then((result) => ({ result }));
}
