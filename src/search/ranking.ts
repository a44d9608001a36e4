/**
 * The ranking stack, in the order it runs: candidates (from the searcher:
 * BM25 over elements, k-NN over element vectors, the definitions of a
 * symbol the query names and the files named after it) → features → one score
 * (the element's own evidence plus its file's) → the order inside each file →
 * results spread over files → one hit per stretch of code. Each stage is a
 * small pure function, kept because the benchmark says so
 * (docs/retrieval-quality.md).
 */
import { isCodeElementType } from '../analysis/element.js';
import {
  EXACT_NAME_BOOST,
  fuseScores,
  nameMatch,
  PARTIAL_NAME_BOOST,
  PATH_BOOST,
  type FusionWeights,
  type NameMatch,
  type ScoredHit,
} from './fusion.js';
import { meaningfulWords, pathWordMatch, requestedRoles, rolePrior, type PathWordMatch } from './path-priors.js';
import type { ParsedQuery } from './query.js';

/** An element as ranking sees it. */
export interface CandidateRow {
  id: number;
  fileId: number;
  path: string;
  type: string;
  name: string;
  startLine: number;
  endLine: number;
  language?: string | null;
}

export interface Evidence {
  /** BM25 over elements (their names, signatures, descriptions, paths and own code), best first. */
  lexical: readonly ScoredHit[];
  /** Cosine similarity of element vectors, best first. */
  vector: readonly ScoredHit[];
  /** Elements that define the symbol the query names, found by name. */
  definitions: ReadonlySet<number>;
  /** Files named after the symbol the query names (`Router` -> Router.php), by file id. */
  namedFiles: ReadonlySet<number>;
  /** BM25 over whole files, each file's score over the best file's (prose queries). */
  files?: ReadonlyMap<number, number> | undefined;
}

export interface RankingOptions {
  k: number;
  weights: FusionWeights;
  /** Signals the mode leaves out: no name or path boosts for vector-only search. */
  lexicalSignals: boolean;
}

export interface RankedHit<Row extends CandidateRow> {
  row: Row;
  score: number;
  /**
   * The part of the score that is its file's evidence (whole-file BM25,
   * coherence, the file's name and path), the same for each element of
   * the file; the rest is the element's own.
   */
  fileBonus: number;
  signals: RankSignals;
}

/** What found a result, as the searcher reports it. */
export interface RankSignals {
  /** 1-based rank in the BM25 list. */
  lexical?: number;
  /** 1-based rank in the k-NN list, and the cosine similarity. */
  vector?: number;
  similarity?: number;
  name?: NameMatch;
  /** Found as a definition of the symbol the query names. */
  definition?: boolean;
  /** In a file named after that symbol. */
  namedFile?: boolean;
  path?: boolean;
}

/** Times the share of the query's words that the file's name spells. */
export const PATH_WORD_BOOST = 1.5;
/**
 * Times the share of the file name's words that the query spells, times the
 * file's whole-file score (over the best file's). Without that factor the
 * name alone lifted files whose content did not answer: the benchmark had
 * 0.870 and the ocvector set's file MRR 0.576; with it, 0.871 and 0.595
 * (squared: 0.868 and 0.609). Weights 0.2 to 0.7 did about as well; 1 less.
 */
export const FILE_NAME_COVERAGE_BOOST = 0.5;
/** A file named after the symbol the query names: where most languages define their main type. */
export const NAMED_FILE_BOOST = 1;
/**
 * A C header declares what its .c file implements: a question in words is
 * answered by the implementation. Not C++, whose headers hold templates,
 * inline code and the documented API (abseil's answers are all headers).
 */
export const C_HEADER_PRIOR = 0.7;
/** Added to every element of a file that defines, by its exact name, a symbol a sentence names. */
export const DEFINING_FILE_BOOST = 1;
/** Members too small to stand for their container. */
export const FRAGMENT_TYPES: ReadonlySet<string> = new Set(['field', 'property', 'constant']);
/** Their score is scaled by this for prose queries: a short document wins on length alone. */
const FRAGMENT_PRIOR = 0.8;
/** A file's summed score over the best file's, times this, is added to each of its elements. */
export const FILE_COHERENCE = 0.7;
/**
 * Inside a file, a chunk (imports, a module's doc comment, top-level code)
 * ranks as if its score were this much lower: it tells which file answers
 * a question more often than it is the answer. 0.8 and 0.7 gained the same
 * on the ocvector set (element MRR 0.194 -> 0.226), 0.6 and 0.5 cost the
 * benchmark (0.871 -> 0.870: express's module-level code is the answer).
 */
export const CHUNK_PRIOR_IN_FILE = 0.7;
/**
 * A file's third hit and each after it count this much less again: its
 * own evidence may list a second element, but one file should not fill the
 * list. 1, 0.9 and 0.8 trade the evaluation sets' element MRR against the
 * benchmark (ocvector 0.230, 0.225, 0.220; typescript-lib 0.376, 0.369,
 * 0.363; benchmark 0.8699, 0.8703, 0.8708).
 */
export const FURTHER_HIT_DECAY = 0.9;
/** Times the file's BM25 over whole files (over the best file's), added to each of its elements (1 and 0.25 did less well). */
export const FILE_BM25_WEIGHT = 0.5;

export function rankCandidates<Row extends CandidateRow>(
  parsed: ParsedQuery,
  evidence: Evidence,
  rows: ReadonlyMap<number, Row>,
  options: RankingOptions,
): RankedHit<Row>[] {
  // A candidate nothing found (a vector at or below zero cosine, with no other evidence) is not a result: no padding to k.
  const scored = score(parsed, evidence, rows, options).filter((hit) => hit.score > 0);
  // A path query names files: when some match, only they answer it.
  const confined =
    parsed.kind === 'path' && scored.some((hit) => hit.signals.path)
      ? scored.filter((hit) => hit.signals.path)
      : scored;
  return withoutNested(spreadOverFiles(confined), options.k);
}

/** Features to one score per candidate, best first. */
function score<Row extends CandidateRow>(
  parsed: ParsedQuery,
  evidence: Evidence,
  rows: ReadonlyMap<number, Row>,
  options: RankingOptions,
): RankedHit<Row>[] {
  const { weights, lexicalSignals } = options;
  const fused = fuseScores(evidence.lexical, evidence.vector, weights);
  for (const id of evidence.definitions) if (!fused.has(id)) fused.set(id, { id, score: 0 });
  const queryWords = parsed.text.split(/\s+/);
  const roles = requestedRoles(queryWords.flatMap((word) => word.split(/[^\p{L}\p{N}]+/u)));
  const keywords = parsed.kind === 'prose' ? meaningfulWords(queryWords) : [];
  const pathMatches = new Map<string, PathWordMatch>();
  const definingFiles =
    parsed.kind === 'prose' && lexicalSignals ? filesDefining(parsed, evidence, rows) : new Set<number>();

  const out: RankedHit<Row>[] = [];
  for (const candidate of fused.values()) {
    const row = rows.get(candidate.id);
    if (!row) continue;
    const signals: RankSignals = {};
    if (candidate.lexicalRank !== undefined) signals.lexical = candidate.lexicalRank;
    if (candidate.vectorRank !== undefined) {
      signals.vector = candidate.vectorRank;
      signals.similarity = candidate.vectorScore!;
    }
    // The element's own evidence, and its file's (the same for each element of the file).
    let own = candidate.score;
    let file = 0;
    // The file's whole-file score (over the best file's), for questions in words.
    const fileScore = parsed.kind === 'prose' ? (evidence.files?.get(row.fileId) ?? 0) : 0;
    if (parsed.kind === 'prose' && FRAGMENT_TYPES.has(row.type)) own *= FRAGMENT_PRIOR;
    if (lexicalSignals) {
      if (parsed.identifiers.length > 0 && isCodeElementType(row.type)) {
        const match = nameMatch(row.name, parsed.identifiers);
        if (match) {
          signals.name = match;
          own += nameBoost(match, parsed);
        }
      }
      if (evidence.definitions.has(row.id)) signals.definition = true;
      if (definingFiles.has(row.fileId)) file += DEFINING_FILE_BOOST;
      if (evidence.namedFiles.has(row.fileId)) {
        signals.namedFile = true;
        file += NAMED_FILE_BOOST;
      }
      if (parsed.paths.length > 0 && parsed.paths.some((hint) => row.path.toLowerCase().includes(hint))) {
        signals.path = true;
        if (parsed.kind !== 'path') file += PATH_BOOST;
      }
      if (parsed.kind === 'prose') {
        let match = pathMatches.get(row.path);
        if (!match) pathMatches.set(row.path, (match = pathWordMatch(row.path, keywords)));
        // The name counts as far as the file's content answers too.
        file += PATH_WORD_BOOST * match.share + FILE_NAME_COVERAGE_BOOST * match.coverage * fileScore;
      }
    }
    file += FILE_BM25_WEIGHT * fileScore;
    let prior = rolePrior(row.path, roles);
    if (parsed.kind === 'prose' && isCHeader(row)) prior *= C_HEADER_PRIOR;
    out.push({ row, score: (own + file) * prior, fileBonus: file * prior, signals });
  }
  addFileCoherence(out, FILE_COHERENCE);
  out.sort(byScore);
  if (parsed.kind === 'prose') orderWithinFiles(out);
  return out;
}

/**
 * The files that define a symbol a sentence names by its exact name
 * ("Ecto.Repo behaviour for database interactions" -> repo.ex). The whole
 * file rises, not the definition: boosting the container put it above the
 * member the sentence describes (typescript-lib evaluation set, element MRR
 * 0.351 -> 0.235); boosting its file kept that order and gained on the
 * benchmark.
 */
function filesDefining<Row extends CandidateRow>(
  parsed: ParsedQuery,
  evidence: Evidence,
  rows: ReadonlyMap<number, Row>,
): Set<number> {
  const files = new Set<number>();
  for (const id of evidence.definitions) {
    const row = rows.get(id);
    if (row && nameMatch(row.name, parsed.identifiers) === 'exact') files.add(row.fileId);
  }
  return files;
}

/**
 * Evidence of the whole file: a file whose several elements match is more
 * likely the answer than one with a single lucky hit. Each of its elements
 * gets `weight` times the file's summed score over the best file's sum, so
 * files move as a whole and the order inside a file stays the elements' own.
 */
function addFileCoherence<Row extends CandidateRow>(sorted: RankedHit<Row>[], weight: number): void {
  if (weight <= 0 || sorted.length === 0) return;
  const sums = new Map<number, number>();
  // All of a file's candidates count: the sum of its best 3, 5 or 10 did less well.
  for (const hit of sorted) sums.set(hit.row.fileId, (sums.get(hit.row.fileId) ?? 0) + Math.max(0, hit.score));
  const top = Math.max(...sums.values());
  if (top <= 0) return;
  for (const hit of sorted) {
    const bonus = weight * (sums.get(hit.row.fileId)! / top);
    hit.score += bonus;
    hit.fileBonus += bonus;
  }
}

/**
 * The order inside each file, leaving where the file stands: its elements
 * are sorted again with chunks counted CHUNK_PRIOR_IN_FILE times lower,
 * and take the file's scores in that order, so the file's best place goes
 * to its best element rather than to its imports.
 */
function orderWithinFiles<Row extends CandidateRow>(sorted: RankedHit<Row>[]): void {
  const byFile = new Map<number, number[]>();
  for (const [i, hit] of sorted.entries()) {
    const places = byFile.get(hit.row.fileId);
    if (places) places.push(i);
    else byFile.set(hit.row.fileId, [i]);
  }
  const key = (hit: RankedHit<Row>) => (hit.row.type === 'chunk' ? hit.score * CHUNK_PRIOR_IN_FILE : hit.score);
  for (const places of byFile.values()) {
    const hits = places.map((i) => sorted[i]!);
    // Only chunks move: a file without one keeps its order (the sort is stable).
    if (!hits.some((hit) => hit.row.type === 'chunk')) continue;
    const reordered = [...hits].sort((a, b) => key(b) - key(a));
    // Scores sorted best first, as `places` are: each place keeps its score and takes the next hit in the file's new order.
    for (const [j, i] of places.entries())
      if (reordered[j] !== hits[j]) sorted[i] = { ...reordered[j]!, score: hits[j]!.score };
  }
}

/**
 * A name the query spells is what an identifier query asks for, but only
 * context in a sentence ("the method of the AudioBuffer interface that..."),
 * where BM25 already weighs it: boosting it there put the container above
 * the member the sentence describes (evaluation sets, eval/README.md).
 */
function nameBoost(match: NameMatch, parsed: ParsedQuery): number {
  if (parsed.kind === 'prose') return 0;
  return match === 'exact' ? EXACT_NAME_BOOST : PARTIAL_NAME_BOOST;
}

/**
 * A result list is for finding places: ten windows of one file are one
 * answer. A file's evidence counts once, for its first hit; each further
 * hit of that file keeps only its own evidence (FURTHER_HIT_DECAY less
 * from the third on), then the list is sorted again. A second element of
 * the right file is still listed when it matches well on its own: halving
 * every further hit, as before, hid it (evaluation sets, element hit@10:
 * ocvector 0.383 -> 0.400, typescript-lib 0.525 -> 0.605).
 */
export function spreadOverFiles<Row extends CandidateRow>(ranked: readonly RankedHit<Row>[]): RankedHit<Row>[] {
  const listed = new Map<number, number>();
  const spread = ranked.map((hit) => {
    const before = listed.get(hit.row.fileId) ?? 0;
    listed.set(hit.row.fileId, before + 1);
    if (before === 0) return hit;
    return { ...hit, score: (hit.score - hit.fileBonus) * FURTHER_HIT_DECAY ** (before - 1), fileBonus: 0 };
  });
  return spread.sort(byScore);
}

/**
 * One hit per stretch of code: a hit inside a better one (a method of a
 * class already listed) is dropped. A container ranked below its members
 * takes the place of the first of them when those are only fields or
 * constants: they stand for it badly. Only a container short enough for
 * its snippet to show the member stands for it: a long class listed for
 * its name must not hide the method the query describes.
 */
export function withoutNested<Row extends CandidateRow>(
  ranked: readonly RankedHit<Row>[],
  k: number,
  shownLines = 30,
): RankedHit<Row>[] {
  const kept: RankedHit<Row>[] = [];
  const contains = (outer: Row, inner: Row) =>
    outer.path === inner.path &&
    outer.startLine <= inner.startLine &&
    inner.endLine <= outer.endLine &&
    outer.endLine - outer.startLine < shownLines;
  // A container may come a little below k members; look that far, not further.
  for (const [i, hit] of ranked.entries()) {
    if (kept.length >= k && i >= 2 * k) break;
    if (kept.some((other) => contains(other.row, hit.row))) continue;
    const members = kept.filter((other) => contains(hit.row, other.row));
    if (members.length === 0) {
      if (kept.length < k) kept.push(hit);
    } else if (members.every((member) => FRAGMENT_TYPES.has(member.row.type))) {
      const at = kept.indexOf(members[0]!);
      kept[at] = { ...hit, score: members[0]!.score };
      for (const member of members.slice(1)) kept.splice(kept.indexOf(member), 1);
    }
  }
  return kept;
}

function isCHeader(row: CandidateRow): boolean {
  return row.language === 'c' && row.path.endsWith('.h');
}

function byScore<Row extends CandidateRow>(a: RankedHit<Row>, b: RankedHit<Row>): number {
  return b.score - a.score || a.row.path.localeCompare(b.row.path) || a.row.startLine - b.row.startLine;
}
