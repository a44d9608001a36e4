/**
 * The one check of what an embedder answers, before anything is recorded
 * or written: a dimension FAISS can index (1 to 65,536) and the one
 * expected (the embedder's first answer's, or the index's), a vector per
 * input, finite values, and no all-zero vector (it matches nothing: a model
 * that answers one is broken; the built-in embedder's, for a text of
 * punctuation alone, is allowed). The remote embedders apply it to every raw
 * answer (before normalising hides an infinity); the Indexer applies it
 * where vectors enter the index, and the Searcher where a query vector
 * enters a search, whatever the embedder (built-in, remote, a caller's
 * own). A failure is an EmbedderError INVALID_VECTORS that names the
 * embedder (its server, for one that has one), the problem, and what to do.
 */
import { MAX_DIMENSION } from '../native/validate.js';
import { BUILTIN_INSTEAD, EmbedderError } from './embedder.js';

/** What the messages name: the embedder's id, and its server when it has one. */
export interface EmbedderIdentity {
  readonly id: string;
  readonly host?: string | undefined;
}

/** The dimension the answers must have, and where it comes from ("its first answer", "the index"). */
export interface ExpectedDimension {
  dimension: number;
  from: string;
}

export interface VectorCheck {
  /** Inputs the answer is for: one vector each. */
  count: number;
  /** The dimension the answer has (its length / count, for one that has no rows of its own). */
  dimension: number;
  /** The dimension it must have, when one is known. */
  expected?: ExpectedDimension | undefined;
  /**
   * Accept all-zero vectors: from an embedder that gives them for a text
   * with nothing to weigh (Embedder.allowsZeroVectors: the built-in one),
   * and for queries (a query of words common to every file weighs nothing
   * for the built-in embedder; it matches nothing and breaks nothing).
   * From anything else a zero vector is a broken model's answer.
   */
  allowZero?: boolean;
}

/** True for a dimension FAISS can index (an integer from 1 to 65,536). */
export function isIndexableDimension(dimension: unknown): dimension is number {
  return typeof dimension === 'number' && Number.isInteger(dimension) && dimension >= 1 && dimension <= MAX_DIMENSION;
}

/**
 * Checks the dimension an embedder reports (after `init`) before an index
 * records it or a search relies on it. Returns it.
 */
export function checkDimension(embedder: EmbedderIdentity, dimension: unknown, expected?: ExpectedDimension): number {
  if (!isIndexableDimension(dimension)) throw unindexableDimension(embedder, dimension);
  if (expected && dimension !== expected.dimension) throw dimensionChanged(embedder, dimension, expected);
  return dimension;
}

/**
 * Checks one answer: `count` rows of `dimension` floats in `vectors`, each
 * finite and (unless `allowZero`) not all zero. Returns `vectors`.
 */
export function checkVectors(embedder: EmbedderIdentity, vectors: unknown, check: VectorCheck): Float32Array {
  const { count, dimension, expected } = check;
  if (!(vectors instanceof Float32Array))
    throw invalid(embedder, `answered ${describe(vectors)} instead of vectors (a Float32Array)`);
  checkDimension(embedder, dimension, expected);
  if (vectors.length !== count * dimension)
    throw invalid(
      embedder,
      `answered ${vectors.length} values for ${count} input${count === 1 ? '' : 's'} of ${dimension} dimensions (${count * dimension} expected)`,
    );
  for (let row = 0; row < count; row++) {
    const start = row * dimension;
    let zero = true;
    for (let i = start; i < start + dimension; i++) {
      const value = vectors[i]!;
      if (!Number.isFinite(value))
        throw invalid(embedder, `answered a vector holding ${value} (${position(row, count)}, value ${i - start + 1})`);
      if (value !== 0) zero = false;
    }
    if (zero && !check.allowZero)
      throw invalid(embedder, `answered an all-zero vector (${position(row, count)}), which matches nothing`);
  }
  return vectors;
}

/** "the embedding server at <url> (ollama:nomic-embed-text)", or "the embedder builtin:v2:512". */
export function embedderName(embedder: EmbedderIdentity): string {
  return embedder.host ? `the embedding server at ${embedder.host} (${embedder.id})` : `the embedder ${embedder.id}`;
}

function unindexableDimension(embedder: EmbedderIdentity, dimension: unknown): EmbedderError {
  const what =
    typeof dimension === 'number' && Number.isInteger(dimension) && dimension > MAX_DIMENSION
      ? `vectors of ${dimension} dimensions; FAISS indexes at most ${MAX_DIMENSION}`
      : `vectors of ${String(dimension)} dimensions; FAISS indexes 1 to ${MAX_DIMENSION}`;
  return invalid(embedder, `answered ${what}`);
}

function dimensionChanged(embedder: EmbedderIdentity, dimension: number, expected: ExpectedDimension): EmbedderError {
  const what = `answered vectors of ${dimension} dimensions, not the ${expected.dimension} of ${expected.from}`;
  if (!embedder.host) return invalid(embedder, what);
  // Another model under the same name, or a server that answers inconsistently: the index's vectors would not compare.
  return new EmbedderError(
    `${embedderName(embedder)} ${what}: it now serves another model under that name, or answers inconsistently; ` +
      `serve the model the index was built with, or rebuild the index with this one (oc-vector-index --rebuild), ${BUILTIN_INSTEAD}`,
    'INVALID_VECTORS',
  );
}

/** The problem, and what to do: for a server, check its model; for an in-process embedder, it is a bug in it. */
function invalid(embedder: EmbedderIdentity, problem: string): EmbedderError {
  const remedy = embedder.host
    ? `nothing of this answer is used: check that the server serves an embedding model under that name and works (its logs, a restart), ${BUILTIN_INSTEAD}`
    : 'nothing of this answer is used: the embedder is broken (a bug in it); fix it, or rebuild the index with another one (oc-vector-index --rebuild --embedder <name>)';
  return new EmbedderError(`${embedderName(embedder)} ${problem}: ${remedy}`, 'INVALID_VECTORS');
}

function position(row: number, count: number): string {
  return count === 1 ? 'its only vector' : `vector ${row + 1} of ${count}`;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return `an array`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  return typeof value === 'object' ? `an object` : `a ${typeof value}`;
}
