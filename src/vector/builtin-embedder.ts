/**
 * The built-in embedder: no model, no download, deterministic. A document
 * becomes a bag of features hashed into a fixed number of dimensions with
 * random signs (the "hashing trick"):
 *
 * - each identifier sub-word, stemmed (getUserById -> get, user, by, id),
 *   and the whole identifier, so exact names still score highest;
 * - pairs of adjacent sub-words (user+by, by+id), so that a part of a
 *   name (`textPath`) meets the whole (`SVGTextPathElement`) more closely
 *   than names that only share its words;
 * - the idea a word belongs to (delete ~ remove ~ del, cfg ~ config);
 * - character trigrams of longer words, so partial words and abbreviations
 *   still meet (auth ~ authenticate);
 *
 * weighted by where they occur (the name line and signature count most),
 * with sub-linear term frequency and little weight for keywords. Queries
 * are embedded the same way, and weighted by the corpus's own statistics
 * (inverse document frequency) when the caller passes `termWeight`, so
 * common words in this codebase count less than rare ones.
 */
import type { EmbedderBackend } from './backend.js';
import type { Embedder, QueryEmbeddingOptions } from './embedder.js';
import { normalizeRows } from './embedder.js';
import { splitIdentifier, stem, words } from '../text/terms.js';
import { conceptFor, isStopWord } from '../text/vocabulary.js';

/** Bumped whenever features or weights change: old vectors must not be mixed with new ones. */
export const BUILTIN_EMBEDDER_VERSION = 2;
export const BUILTIN_DEFAULT_DIMENSION = 512;

/** Weights of the document lines by their label (the header line has none). */
const FIELD_WEIGHTS: Record<string, number> = {
  header: 3,
  Signature: 1.5,
  Description: 1.5,
  File: 0.7,
  Parameters: 1,
  Returns: 1,
  Properties: 1,
  Dependencies: 0.8,
  Access: 0,
  Lines: 0,
  code: 1,
};

const WHOLE_IDENTIFIER_WEIGHT = 1;
const SUBWORD_PAIR_WEIGHT = 1;
const CONCEPT_WEIGHT = 0.5;
const TRIGRAM_WEIGHT = 0.6; // shared among a word's trigrams
const STOP_WORD_WEIGHT = 0.1;

export interface BuiltinEmbedderOptions {
  /** Default 512. */
  dimension?: number;
}

/**
 * The built-in backend: ids `builtin:v<version>:<dimension>`. Only this
 * version's can be made; an index of an older one is rebuilt. Its embedders
 * run on the indexer's worker threads.
 */
export const builtinBackend: EmbedderBackend<Record<string, never>> = {
  name: 'builtin',
  create: () => new BuiltinEmbedder(),
  fromId(rest) {
    const recorded = parseVersion(rest);
    return recorded?.version === BUILTIN_EMBEDDER_VERSION
      ? new BuiltinEmbedder({ dimension: recorded.dimension })
      : undefined;
  },
  isOutdated(rest, embedder) {
    const recorded = parseVersion(rest);
    return recorded !== undefined && embedder instanceof BuiltinEmbedder && recorded.version < BUILTIN_EMBEDDER_VERSION;
  },
  workerId: (embedder) => (embedder instanceof BuiltinEmbedder ? embedder.id : undefined),
  recomputesCheaply: true,
  modelName: 'refused',
};

/** `v2:512` (an id past `builtin:`) → its version and dimension. */
function parseVersion(rest: string): { version: number; dimension: number } | undefined {
  const match = /^v(\d+):(\d+)$/.exec(rest);
  return match ? { version: Number(match[1]), dimension: Number(match[2]) } : undefined;
}

export class BuiltinEmbedder implements Embedder {
  readonly id: string;
  readonly dimension: number;
  readonly inProcess = true;
  /** A text with no word, identifier or trigram (`{}`, `---`) has no feature: its vector is zero, and matches nothing. */
  readonly allowsZeroVectors = true;
  #calls = 0;
  /**
   * Each feature once, with its slot: a document's features are then
   * summed by object identity, not by hashing their names again (those
   * lookups were a large share of the embedder's time).
   */
  readonly #features = new Map<string, Feature>();
  /** word as written -> its weighted features (before field weights). */
  readonly #wordFeatures = new Map<string, readonly [Feature, number][]>();
  /**
   * A document's weight per feature, by the feature's slot, and the slots in
   * the order first met: summing into an array is faster than a Map keyed
   * by feature (measured in docs/history/performance.md), with the same vectors.
   * Zero between documents.
   */
  #sums = new Float64Array(4096);
  readonly #touched: number[] = [];
  /** Each feature's bucket and sign packed as (bucket + 1) * sign, by its slot; a new feature's slot is the next index. */
  readonly #packedBySlot: number[] = [];

  constructor(options: BuiltinEmbedderOptions = {}) {
    const dimension = options.dimension ?? BUILTIN_DEFAULT_DIMENSION;
    if (!Number.isInteger(dimension) || dimension < 16 || dimension > 8192) {
      throw new RangeError(`the built-in embedder's dimension must be an integer from 16 to 8192, not ${dimension}`);
    }
    this.dimension = dimension;
    this.id = `builtin:v${BUILTIN_EMBEDDER_VERSION}:${dimension}`;
  }

  get calls(): number {
    return this.#calls;
  }

  async init(): Promise<void> {}

  async embedDocuments(texts: readonly string[]): Promise<Float32Array> {
    this.#calls++;
    return this.embedDocumentsSync(texts);
  }

  /** The same, synchronously: it is CPU work with no I/O. */
  embedDocumentsSync(texts: readonly string[]): Float32Array {
    const out = new Float32Array(texts.length * this.dimension);
    texts.forEach((text, row) => {
      this.#boundMemos();
      this.#documentFeatures(text);
      this.#projectSums(out, row * this.dimension);
    });
    return normalizeRows(out, this.dimension);
  }

  async embedQuery(text: string, options: QueryEmbeddingOptions = {}): Promise<Float32Array> {
    this.#calls++;
    this.#boundMemos();
    const features = new Map<Feature, number>();
    for (const word of words(text)) {
      for (const [feature, base] of this.#featuresOf(word)) features.set(feature, (features.get(feature) ?? 0) + base);
    }
    // Only sub-word features are weighed by the corpus; identifiers, ideas and trigrams keep their weight.
    const termWeight = options.termWeights ? await weightsOf(features, options.termWeights) : options.termWeight;
    if (termWeight) {
      for (const [feature, weight] of features) {
        if (feature.name.startsWith('s:')) features.set(feature, weight * termWeight(feature.name.slice(2)));
      }
    }
    const out = new Float32Array(this.dimension);
    this.#project(features, out);
    return normalizeRows(out, this.dimension);
  }

  /** The header line names the element; `Label: value` lines weigh by label; everything after `Code:` is code. */
  #documentFeatures(text: string): void {
    const lines = text.split('\n');
    const header = lines[0] ?? '';
    const colon = header.indexOf(': ');
    this.#addText(colon > 0 ? header.slice(colon + 2) : header, FIELD_WEIGHTS.header!);
    let inCode = false;
    for (const line of lines.slice(1)) {
      if (!inCode && line === 'Code:') {
        inCode = true;
        continue;
      }
      const labelEnd = inCode ? -1 : line.indexOf(': ');
      const weight = labelEnd > 0 ? FIELD_WEIGHTS[line.slice(0, labelEnd)] : undefined;
      if (weight === undefined) this.#addText(line, FIELD_WEIGHTS.code!);
      else if (weight > 0) this.#addText(line.slice(labelEnd + 2), weight);
    }
  }

  /** Adds a text's features, times `weight`, to the document's sums. */
  #addText(text: string, weight: number): void {
    for (const word of words(text)) {
      for (const [{ slot }, base] of this.#featuresOf(word)) {
        if (slot >= this.#sums.length) this.#growSums(slot);
        if (this.#sums[slot] === 0) this.#touched.push(slot); // every weight added is positive
        this.#sums[slot]! += base * weight;
      }
    }
  }

  #growSums(slot: number): void {
    const grown = new Float64Array(Math.max(slot + 1, this.#sums.length * 2));
    grown.set(this.#sums);
    this.#sums = grown;
  }

  /** Projects the document's sums (term frequency made sub-linear) into `out`, in the order the features were met, and zeroes them. */
  #projectSums(out: Float32Array, offset: number): void {
    for (const slot of this.#touched) {
      const weight = this.#sums[slot]!;
      this.#sums[slot] = 0;
      this.#addToBucket(out, offset, slot, weight > 1 ? 1 + Math.log(weight) : weight);
    }
    this.#touched.length = 0;
  }

  /**
   * Bounds the memos on pathological inputs (generated identifiers; real
   * vocabularies are far smaller). Between documents only, where no sum is
   * held, so that a slot is never two features at once.
   */
  #boundMemos(): void {
    if (this.#wordFeatures.size > 200_000) this.#wordFeatures.clear();
    if (this.#features.size > 500_000) {
      // The words' memo holds features too: both start afresh, so one name is never two features.
      this.#features.clear();
      this.#wordFeatures.clear();
      this.#packedBySlot.length = 0;
    }
  }

  #featuresOf(word: string): readonly [Feature, number][] {
    let cached = this.#wordFeatures.get(word);
    if (cached) return cached;
    const list: [string, number][] = [];
    const parts = splitIdentifier(word);
    if (parts.length > 1) list.push([`w:${parts.join('')}`, WHOLE_IDENTIFIER_WEIGHT]);
    const stems = parts.map(stem);
    for (let i = 1; i < stems.length; i++) list.push([`p:${stems[i - 1]}+${stems[i]}`, SUBWORD_PAIR_WEIGHT]);
    for (const stemmed of stems) {
      const stop = isStopWord(stemmed);
      list.push([`s:${stemmed}`, stop ? STOP_WORD_WEIGHT : 1]);
      if (stop) continue;
      const concept = conceptFor(stemmed);
      if (concept) list.push([`c:${concept}`, CONCEPT_WEIGHT]);
      if (stemmed.length >= 5) {
        const padded = `^${stemmed}$`;
        const count = padded.length - 2;
        for (let i = 0; i < count; i++) list.push([`t:${padded.slice(i, i + 3)}`, TRIGRAM_WEIGHT / Math.sqrt(count)]);
      }
    }
    cached = list.map(([name, weight]) => [this.#feature(name), weight] as [Feature, number]);
    this.#wordFeatures.set(word, cached);
    return cached;
  }

  #project(features: Map<Feature, number>, out: Float32Array): void {
    for (const [{ slot }, weight] of features) this.#addToBucket(out, 0, slot, weight);
  }

  /** Adds `weight`, signed, to the bucket of the feature in `slot`. */
  #addToBucket(out: Float32Array, offset: number, slot: number, weight: number): void {
    const packed = this.#packedBySlot[slot]!;
    out[offset + Math.abs(packed) - 1]! += Math.sign(packed) * weight;
  }

  #feature(name: string): Feature {
    let feature = this.#features.get(name);
    if (feature === undefined) {
      const hash = fnv1a(name);
      let packed = ((hash >>> 1) % this.dimension) + 1;
      if (hash & 1) packed = -packed;
      const slot = this.#packedBySlot.push(packed) - 1;
      this.#features.set(name, (feature = { name, slot }));
    }
    return feature;
  }
}

/** A feature's name (`s:user`, `t:use`), and its slot in a document's sums and in the bucket table. */
interface Feature {
  readonly name: string;
  readonly slot: number;
}

/** 32-bit FNV-1a over UTF-16 code units, then a final avalanche (murmur3's fmix32). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** The weights of the sub-word features' terms, asked for at once, as a lookup (1 for a term not answered). */
async function weightsOf(
  features: ReadonlyMap<Feature, number>,
  termWeights: (terms: readonly string[]) => Promise<ReadonlyMap<string, number>>,
): Promise<(term: string) => number> {
  const terms = [...features.keys()].filter((feature) => feature.name.startsWith('s:')).map((f) => f.name.slice(2));
  const weights = terms.length > 0 ? await termWeights(terms) : new Map<string, number>();
  return (term) => weights.get(term) ?? 1;
}
