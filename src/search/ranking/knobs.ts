/**
 * Every number the ranking is tuned by, one line each with one reason, in
 * the order the pipeline uses them: candidates → features → score →
 * diversify. The reading of a query (search/query.ts) keeps its own limits
 * beside the rules they bound: how many names a query of names holds, how
 * far a defect word reaches, a commit subject's scope. What each number
 * here was measured at, and what else was tried, is in
 * docs/retrieval-quality.md ("Constants and their history"), not here.
 */
import type { QueryKind } from '../query.js';

// Candidates: what each half of the search fetches.

/** Candidates taken from each list at least: more gained little, at twice the latency. */
export const MIN_CANDIDATES = 100;
/** Candidates per result asked for, when k is large. */
export const CANDIDATES_PER_RESULT = 10;
/** The vector side fetches this many times deeper when filters (applied after FAISS) may thin its list. */
export const FILTERED_OVERFETCH = 4;
/** Definitions of a named symbol taken at most. */
export const DEFINITION_CANDIDATES = 50;
/** Elements taken from a file named after the queried symbol, in file order. */
export const NAMED_FILE_ELEMENTS = 3;
/** A name of a query of names only is looked up as typed (`starts_with`, not `startsWith`) in at most this many files. */
export const MAX_SPELLING_FILES = 50;
/** A term in more than this share of the elements' names is left out of BM25 when rarer ones remain: it costs time and weighs nothing. */
export const COMMON_TERM_SHARE = 0.03;
/** The same over code, where a word is in many more elements and each costs BM25 a row. */
export const COMMON_CODE_TERM_SHARE = 0.01;
/** The same for the whole-file evidence. */
export const COMMON_FILE_TERM_SHARE = 0.1;
/** Terms are left out only in an index of at least this many elements: smaller ones answer fast with every term. */
export const COMMON_TERM_MIN_INDEX = 20_000;
/** A one-identifier query's whole spelling counts in code as much as in a name (else the store's code weight): `checkFiles` asks for the code that holds it. */
export const WHOLE_IDENTIFIER_CODE_WEIGHT = 1;
/** Term-frequency saturation of BM25 over whole files, as over elements. */
export const FILE_BM25_K1 = 1.2;
/** Length normalisation of BM25 over whole files, full: a file of many elements holds many terms by size alone. */
export const FILE_BM25_B = 1;
/**
 * A file shorter than this share of the mean (in elements) counts as this long: a page of YAML
 * or Markdown is one element, and would otherwise outscore a module that holds the same words
 * across its functions (an issue template over the code for "improve connection error reporting").
 */
export const FILE_BM25_MIN_LENGTH = 0.5;

// Features: what is measured of each candidate.

/** Members too small to stand for their container: scaled down for sentences, replaced by a short container. */
export const FRAGMENT_TYPES: ReadonlySet<string> = new Set(['field', 'property', 'constant']);

/** Multipliers of a result's score by its path's role, when the query does not ask for that role: implementation first. */
export const ROLE_PRIOR = {
  /** Tests answer "how is X tested", rarely "how does X work"; a test named after a feature spells the question as well as its code does. */
  test: 0.45,
  /** Documentation describes the code; the code is the answer. A changelog quotes the question's words, a translated page repeats them in each language. */
  docs: 0.3,
  /** Examples use the API rather than define it. */
  example: 0.6,
  /** Benchmarks exercise the code rather than define it. */
  bench: 0.6,
  /** Generated code repeats what its source defines. */
  generated: 0.6,
  /** Vendored code is someone else's project. */
  vendor: 0.6,
  /**
   * A file no grammar reads, in a format seldom written by hand (templates that generate code,
   * API dumps, XML, build and property files, test data; path-priors.ts): a question about code
   * is answered by the code it goes with. Not when the query names the file (`pom`, `xml`).
   */
  plain: 0.7,
} as const;

// Score: the weight of each feature, by the query's kind.

/** One weight for each kind of query. */
export type PerKind = Readonly<Record<QueryKind, number>>;
const perKind = (identifier: number, path: number, prose: number): PerKind => ({ identifier, path, prose });

/**
 * The weights of a candidate's features, one line each: identifier, path,
 * prose. The first ten are added (weight × the feature's value); the last
 * two multiply. A weight of 0 is a feature that kind of query leaves out.
 */
export const SCORE_WEIGHTS = {
  /** BM25 over elements, over the best hit's: the evidence every query has. */
  lexical: perKind(1, 1, 1),
  /** Cosine over the best hit's: half for a sentence (the built-in embedder mostly repeats BM25), less for a name or a path (it blurs an exact match). */
  vector: perKind(0.4, 0.3, 0.5),
  /** The element's name is the identifier the query spells: above anything fusion alone gives (under 2); a sentence's names are context BM25 weighs already. */
  exactName: perKind(2, 2, 0),
  /** The query's last segment names the element (`Index.search` ~ `FaissIndex.search`). */
  partialName: perKind(0.6, 0.6, 0),
  /** The file matches a path the query names (a path query is confined to those files instead). */
  path: perKind(0.6, 0, 0.6),
  /** The file is named after the symbol the query names: where most languages define their main type. */
  namedFile: perKind(1, 1, 1),
  /** The file defines, by its exact name, a symbol a sentence names: the whole file rises, not the definition (which jumped above the member described). */
  definingFile: perKind(0, 0, 1),
  /** The share of a sentence's words that the file's or its directory's name spells. */
  pathWords: perKind(0, 0, 1.5),
  /** The share of the file name's words a sentence spells, times the file's whole-file score: a name counts as far as the content answers. */
  fileName: perKind(0, 0, 0.5),
  /** BM25 over whole files, over the best file's: a file that answers a sentence across several elements. */
  fileBm25: perKind(0, 0, 0.5),
  /** Multiplies a field's, property's or constant's own evidence for a sentence: a short document wins on length alone. */
  fragment: perKind(1, 1, 0.8),
  /** Multiplies a C header's score for a sentence: its .c file implements what it declares (not C++, whose headers hold the code). */
  cHeader: perKind(1, 1, 0.7),
} as const satisfies Record<string, PerKind>;

/** Each element gets this times its file's summed score over the best file's: files move as a whole. */
export const FILE_COHERENCE = 0.7;

// A request for a change (ParsedQuery.asksChange: `fix …`, `add …`, a commit subject, a task)
// names a behaviour a file implements across its elements, not a topic a file is named after.

/** The features of the prose line a change weighs otherwise. */
export const CHANGE_WEIGHTS = {
  /** The whole file's BM25 leads: the file where the request's words meet. */
  fileBm25: 2,
  /** A file or directory named like the request answers a topic, seldom a change (`cache.py` for "use SeparateBodyFileCache for file caching"). */
  pathWords: 0.3,
  fileName: 0,
  /** The file that defines a name the request spells is one place among several a change touches. */
  definingFile: 0.5,
} as const satisfies Partial<Record<keyof typeof SCORE_WEIGHTS, number>>;
/** The vector side's share of its fusion weight: the built-in embedder repeats the request's words, less precisely than BM25. */
export const CHANGE_VECTOR_SHARE = 0.5;
/**
 * BM25 over an element's code weighs this much beside BM25 over its name, signature and
 * description, for a request (else the store's 0.3): a request names a behaviour, which the
 * code spells, where a topic names what the element is.
 */
export const CHANGE_CODE_WEIGHT = 1;
/** ROLE_PRIOR raised to this power: a change is made in the implementation, not the test or the changelog that spells it. */
export const CHANGE_ROLE_PRIOR_POWER = 2;

// Diversify: the order inside a file, and across files.

/** Inside a file, a chunk (imports, a module's doc, top-level code) ranks as if its score were this much lower: it tells which file, not where. */
export const CHUNK_PRIOR_IN_FILE = 0.7;
/** A file's third hit and each after it count this much less again: one file should not fill the list. */
export const FURTHER_HIT_DECAY = 0.9;
/** A container stands for its members only when it is this short (its snippet shows them). */
export const CONTAINER_SHOWN_LINES = 30;
