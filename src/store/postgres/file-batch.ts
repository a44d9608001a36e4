/**
 * A batch of file writes made into statements (run-writer.ts queues them: write-pipeline.ts):
 * what each file's new documents do to its elements, planned as the embedded store's writeFile
 * plans it (elements whose document is unchanged keep their row and vector, only their lines
 * move; the rest are replaced), then one statement a table under ids reserved beforehand. The
 * building turns the event loop between tables, so that the batch before, queued, goes on.
 */
import { elementNames, elementWords } from '../element-texts.js';
import { type ElementPlan, type PlacedElement, planElements } from '../element-plan.js';
import { StoreError } from '../errors.js';
import type { FileRow } from '../rows.js';
import type { FileWrite, WrittenFile } from '../writes.js';
import { insertElements, moveElements, replaceOccurrences, upsertFiles } from './file-writes.js';
import { LexicalBatch, type LexicalElement, type LexicalStats, type LexicalWriter } from './lexical-writer.js';
import type { Queryable } from './serial.js';
import { runStatement, type Statement } from './statement.js';
import type { VectorSpace } from './vector-space.js';
import type { ElementVector, VectorWriter } from './vector-writer.js';
import { turn, type WriteStep } from './write-pipeline.js';

type Write = Extract<FileWrite, { kind: 'write' }>;

/**
 * Elements a queued part of a batch holds, at least (files stay whole): a batch of 64 files can
 * hold most of a run's elements, and the server waits for the first part while it is built.
 */
export const QUEUED_ELEMENTS = 512;

/** Writes in order, cut into parts of at least `elements` elements each (the last may hold fewer). */
export function inParts(writes: readonly FileWrite[], elements: number): FileWrite[][] {
  const parts: FileWrite[][] = [[]];
  let held = 0;
  for (const w of writes) {
    if (held >= elements) {
      parts.push([]);
      held = 0;
    }
    parts.at(-1)!.push(w);
    if (w.kind === 'write') held += w.documents.length;
  }
  return parts;
}

/** Terms whose counts a run holds before it writes them (about 100 bytes each), and gathers anew. */
const STATS_TERMS_HELD = 250_000;

/** Elements tokenized between two turns of the event loop. */
const ELEMENTS_PER_TURN = 512;

/** What a batch is planned against, and how it gets what it needs from the store. */
export interface BatchContext {
  s: string;
  repoId: number;
  /** The connection the statements run on, in the run's transaction. */
  client: Queryable;
  /** The repository's files and each file's elements, as the batches before leave them. */
  files: ReadonlyMap<string, FileRow>;
  elements: ReadonlyMap<number, PlacedElement[]>;
  lexical: LexicalWriter;
  /** The lexical statistics gathered over the run's batches, not written yet. */
  stats: LexicalStats;
  vectors: VectorWriter;
  space: VectorSpace;
  /** pgvector's type, as vector-binary.ts sends vectors. */
  vectorOid: number;
  /** Ids for new files and elements (file-writes.ts, reserveIds). */
  reserve: (count: { files: number; elements: number }) => Promise<{ files: number[]; elements: number[] }>;
  /** Vectors of documents some element holds, by hash. */
  embeddings: (hashes: readonly string[]) => Promise<Map<string, Float32Array>>;
  /** The step that removes elements with their words and vectors. */
  removeElements: (ids: readonly number[]) => WriteStep;
}

export interface FileBatch {
  results: WrittenFile[];
  steps: WriteStep[];
  /** The vectors the steps write, by document hash. */
  vectors: Map<string, Float32Array>;
  /** The files' rows and elements once the steps have run. */
  files: FileRow[];
  elements: Map<number, PlacedElement[]>;
  added: number;
}

type Added = { fileId: number; write: Write; plan: ElementPlan['added'][number] };

export async function fileBatch(context: BatchContext, writes: readonly Write[]): Promise<FileBatch> {
  const { s, repoId, client } = context;
  const steps: WriteStep[] = [];
  const queue = (statement: Statement) => steps.push(() => runStatement(client, statement));

  const held = writes.map((w) => context.files.get(w.update.path)?.id);
  const plans = writes.map((w, i) => planElements(context.elements.get(held[i]!) ?? [], w.documents, w.lineBytes));
  const addedCount = plans.reduce((sum, plan) => sum + plan.added.length, 0);
  const reserved = await context.reserve({ files: held.filter((id) => id === undefined).length, elements: addedCount });
  let nextFile = 0;
  const fileIds = held.map((id) => id ?? reserved.files[nextFile++]!);

  const added: Added[] = [];
  const moved: PlacedElement[] = [];
  const removed: number[] = [];
  const elements = new Map<number, PlacedElement[]>();
  const results = plans.map((plan, i) => {
    moved.push(...plan.moved);
    removed.push(...plan.removed);
    for (const one of plan.added) added.push({ fileId: fileIds[i]!, write: writes[i]!, plan: one });
    elements.set(fileIds[i]!, plan.kept);
    return { added: plan.added.length, removed: plan.removed.length, kept: plan.kept.length };
  });

  // A second copy of a document the file holds already has no vector of its own in the batch: it
  // shares the kept copy's, read before anything is removed.
  const missing = [
    ...new Set(added.filter((a) => !a.write.vectors.has(a.plan.document.hash)).map((a) => a.plan.document.hash)),
  ];
  const shared = missing.length > 0 ? await context.embeddings(missing) : new Map<string, Float32Array>();

  queue(upsertFiles(s, repoId, writes, fileIds, Date.now()));
  if (removed.length > 0) steps.push(context.removeElements(removed));
  if (moved.length > 0) queue(moveElements(s, repoId, moved));
  const vectors = new Map<string, Float32Array>();
  if (added.length > 0) {
    const ids = reserved.elements;
    await turn();
    const names = added.map((a) => elementNames(a.plan.document));
    queue(insertElements(s, repoId, ids, added, names));
    const words = new LexicalBatch();
    for (let at = 0; at < added.length; at += ELEMENTS_PER_TURN) {
      await turn();
      words.add(lexicalElements(added, ids, names, at, Math.min(added.length, at + ELEMENTS_PER_TURN)));
    }
    const lexicalRows = context.lexical.rowsStatement(repoId, words);
    if (lexicalRows) queue(lexicalRows);
    context.stats.add(words);
    // Written at the commit, or now once they are many (each write of a term's count leaves a row version).
    if (context.stats.terms >= STATS_TERMS_HELD) queue(context.lexical.statsStatement(repoId, context.stats)!);
    await turn();
    const rows: ElementVector[] = added.map((a, i) => {
      const vector = a.write.vectors.get(a.plan.document.hash) ?? shared.get(a.plan.document.hash);
      if (!vector)
        throw new StoreError(`no vector for ${a.write.update.path}:${a.plan.document.element.startLine}`, 'CORRUPT');
      vectors.set(a.plan.document.hash, vector);
      return { id: ids[i]!, documentHash: a.plan.document.hash, vector };
    });
    queue(context.vectors.putStatement(context.space, repoId, rows, context.vectorOid));
    added.forEach((a, i) =>
      elements.get(a.fileId)!.push({
        id: ids[i]!,
        hash: a.plan.document.hash,
        startLine: a.plan.document.element.startLine,
        endLine: a.plan.document.element.endLine,
        startByte: a.plan.bytes.start,
        endByte: a.plan.bytes.end,
      }),
    );
  }
  await turn();
  const heldIds = held.filter((id): id is number => id !== undefined);
  for (const statement of replaceOccurrences(s, repoId, writes, fileIds, heldIds)) queue(statement);

  const files = writes.map((w, i) => ({ ...w.update, id: fileIds[i]!, elementCount: w.documents.length }));
  return { results, steps, vectors, files, elements, added: added.length };
}

function lexicalElements(
  added: readonly Added[],
  ids: readonly number[],
  names: readonly ReturnType<typeof elementNames>[],
  from: number,
  to: number,
): LexicalElement[] {
  const out: LexicalElement[] = [];
  for (let i = from; i < to; i++) {
    const a = added[i]!;
    out.push({
      id: ids[i]!,
      fileId: a.fileId,
      texts: elementWords(a.plan.document, names[i]!.name, a.write.update.path),
    });
  }
  return out;
}
