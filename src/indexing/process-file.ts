/**
 * One file in a real run: read, hashed and analysed (the step a dry run
 * shares), then described by the model, turned into documents, and given
 * vectors for the documents the index does not hold yet. What becomes of
 * the file is returned as an outcome for the run's next commit; a file that
 * cannot be read or analysed is an outcome too (failed), never an error.
 */
import type { SkippedFile } from '../analysis/types.js';
import { LineStarts } from '../files/line-starts.js';
import type { ScannedFile } from '../files/scan.js';
import { UNTRUSTED_MTIME } from '../store/rows.js';
import { callLines, wordOccurrences } from '../text/occurrences.js';
import { buildDocuments } from '../vector/document.js';
import type { IndexEvent } from './events.js';
import type { FileOutcome, IndexRun } from './index-run.js';
import { readAndAnalyze } from './read-and-analyze.js';

export async function processFile(
  run: IndexRun,
  scanned: ScannedFile,
  maxBytes: number,
  emit: (event: IndexEvent) => void,
): Promise<FileOutcome> {
  const row = run.known.get(scanned.path);
  const outcome: FileOutcome = {
    scanned,
    row,
    change: row ? 'changed' : 'added',
    hash: null,
    language: null,
    error: null,
    documents: [],
    vectors: new Map(),
    mtimeMs: scanned.mtimeMs,
  };
  const reading = await readAndAnalyze(scanned, row, run.analyzer, maxBytes);
  switch (reading.status) {
    case 'too-large':
      return skipped(outcome, reading.skipped, emit);
    case 'unreadable':
      return failed(outcome, `cannot read the file: ${reading.error.message}`, emit);
  }
  if (reading.racy) outcome.mtimeMs = UNTRUSTED_MTIME; // re-hash next time
  outcome.hash = reading.hash;
  switch (reading.status) {
    case 'same-content':
      outcome.change = 'unchanged';
      return outcome;
    case 'analysis-failed':
      return failed(outcome, `analysis failed: ${reading.error.message}`, emit);
    case 'skipped':
      return skipped(outcome, reading.skipped, emit);
  }
  const { text, bytes } = reading;
  let file = reading.file;
  if (run.enricher && file.source === 'ast') {
    file = await run.enricher.enrich(file, text);
    // A file whose model call the abort cut off has the syntax tree's analysis alone: recorded, it
    // would count as indexed and never be asked about again. Left out, the next run asks the
    // model about it, and the answers that came before the abort are in the cache.
    run.signal?.throwIfAborted();
  }
  outcome.language = file.language;
  outcome.documents = buildDocuments(file, text.split('\n'));
  outcome.lineStarts = new LineStarts(bytes);
  outcome.occurrences = wordOccurrences(text, callLines(file.calls));
  outcome.text = text;
  outcome.vectors = await run.queue.vectorsFor(needingVectors(outcome.documents, run.liveCopies(row)));
  return outcome;
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

function skipped(outcome: FileOutcome, file: SkippedFile, emit: (event: IndexEvent) => void): FileOutcome {
  outcome.change = 'skipped';
  outcome.error = `${file.skipped}: ${file.detail}`;
  emit({ type: 'file-skipped', path: file.path, reason: file.skipped, detail: file.detail });
  return outcome;
}

function failed(outcome: FileOutcome, error: string, emit: (event: IndexEvent) => void): FileOutcome {
  outcome.change = 'failed';
  outcome.error = error;
  emit({ type: 'file-failed', path: outcome.scanned.path, error });
  return outcome;
}
