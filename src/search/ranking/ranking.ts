/**
 * The ranking, in the order it runs, each stage a function of its own:
 *
 * 1. candidates: what BM25 and k-NN found, each list over its best
 *    (`gatherCandidates`, fusion.ts), and the definitions of a symbol the
 *    query names;
 * 2. features: what is measured of each (`features`, features.ts);
 * 3. score: the features weighed by the query's kind (`scoreOf`, score.ts,
 *    weights in knobs.ts), then the file's coherence (`addFileCoherence`)
 *    and the order inside each file (`orderWithinFiles`);
 * 4. tiers, for a query of names only (`tierOf`): its definitions, then the
 *    elements holding a whole name it spells as typed, then in another
 *    spelling, then the rest, each tier in score order;
 * 5. diversify: an element's built and declaration copies folded into its
 *    source (`foldCopies`), a file's evidence counted once, and a module's
 *    once over its copies (`spreadOverFiles`), one hit per stretch of code
 *    (`withoutNested`);
 * 6. present: the searcher reads the snippets (present.ts).
 *
 * Every stage is kept because the benchmark says so (docs/retrieval-quality.md).
 */
import { copyFormat, copyKey, copyRank, firstInModules, sharedModules } from './copies.js';
import { gatherCandidates, type FusionWeights, type NameMatch } from './fusion.js';
import { featureContext, features, type CandidateRow, type Evidence, type Features } from './features.js';
import {
  CHUNK_PRIOR_IN_FILE,
  CONTAINER_SHOWN_LINES,
  FILE_COHERENCE,
  FRAGMENT_TYPES,
  FURTHER_HIT_DECAY,
} from './knobs.js';
import type { ParsedQuery } from '../query.js';
import { scoreOf, weightsFor, type ScoreExplanation, type ScoreTerm, type ScoreWeights } from './score.js';

export type { CandidateRow, Evidence } from './features.js';

export interface RankingOptions {
  k: number;
  /** The lexical and vector weights for the query's kind and the mode. */
  weights: FusionWeights;
  /** Signals the mode leaves out: no name or path boosts for vector-only search. */
  lexicalSignals: boolean;
  /** Say how each result's score added up (`explanation`). */
  explain?: boolean;
  /**
   * How many times deeper than asked the lists were fetched because the files are shipped
   * copies of fewer modules (copies.ts, `filesPerModule`): each list is counted in modules.
   */
  filesPerModule?: number;
}

export interface RankedHit<Row extends CandidateRow> {
  row: Row;
  score: number;
  /**
   * Ranked above every hit of a lower tier, whatever the scores (a query of
   * names only; 0 otherwise): 3 a definition by the exact name or one of the
   * first elements of a file named after the symbol, 2 an element holding a
   * whole name the query spells, as typed where the index can tell, 1 one
   * holding it in another spelling (`startsWith` for `starts_with`) or a
   * definition in another case.
   */
  tier: Tier;
  /**
   * The part of the score that is its file's evidence (whole-file BM25,
   * coherence, the file's name and path), the same for each element of
   * the file; the rest is the element's own.
   */
  fileBonus: number;
  signals: RankSignals;
  features: Features;
  /** Its file's summed score over the best file's, which FILE_COHERENCE weighs. */
  coherence: number;
  /** What the stages after the score did to it, in order. */
  steps: readonly RankStep[];
  /** How its score added up, when asked for. */
  explanation?: ScoreExplanation;
}

/** A stage after the score that changed a hit's score. */
export type RankStep =
  /** Took the score of a better place in its file (its chunk counted lower there). */
  | { stage: 'orderInFile'; score: number }
  /** A further hit of a file (or of a module's copies) already listed: lost its file's evidence, and FURTHER_HIT_DECAY to a power. */
  | { stage: 'furtherHit'; fileBonus: number; decay: number }
  /** A short container that took the place and score of its members listed above it. */
  | { stage: 'container'; score: number }
  /** A source that took the place and score of a copy of it listed above it (a built `.js`, a `.d.ts`). */
  | { stage: 'copyOf'; score: number };

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

export type Tier = 0 | 1 | 2 | 3;

const NO_STEPS: readonly RankStep[] = Object.freeze([]);

export function rankCandidates<Row extends CandidateRow>(
  parsed: ParsedQuery,
  evidence: Evidence,
  rows: ReadonlyMap<number, Row>,
  options: RankingOptions,
): RankedHit<Row>[] {
  const weights = weightsFor(parsed, options.weights);
  // Which candidates' files are copies of one module (copies.ts): one file's evidence, counted once.
  const moduleOf = sharedModules(new Set(Array.from(rows.values(), (row) => row.path)));
  // A candidate nothing found (a vector at or below zero cosine, with no other evidence) is not a result: no padding to k.
  // One that holds the name asked for is, though neither list had it (found by its spelling).
  const perModule = options.filesPerModule ?? 1;
  const lists =
    perModule > 1
      ? {
          ...evidence,
          lexical: firstInModules(evidence.lexical, rows, perModule),
          vector: firstInModules(evidence.vector, rows, perModule),
        }
      : evidence;
  const scored = score(parsed, lists, rows, weights, options.lexicalSignals, moduleOf).filter(
    (hit) => hit.score > 0 || hit.tier > 0,
  );
  // A path query names files: when some match, only they answer it.
  const confined =
    parsed.kind === 'path' && scored.some((hit) => hit.signals.path)
      ? scored.filter((hit) => hit.signals.path)
      : scored;
  const ranked = withoutNested(spreadOverFiles(foldCopies(confined), moduleOf), options.k);
  return options.explain ? ranked.map((hit) => ({ ...hit, explanation: explainScore(hit, weights) })) : ranked;
}

/** Candidates, their features and one score each, best first. */
function score<Row extends CandidateRow>(
  parsed: ParsedQuery,
  evidence: Evidence,
  rows: ReadonlyMap<number, Row>,
  weights: ScoreWeights,
  lexicalSignals: boolean,
  moduleOf: ReadonlyMap<string, string>,
): RankedHit<Row>[] {
  const candidates = gatherCandidates(evidence.lexical, evidence.vector);
  for (const id of [...evidence.definitions, ...(evidence.spelledAsTyped ?? [])])
    if (!candidates.has(id)) candidates.set(id, { id, lexical: 0, vector: 0 });
  const context = featureContext(parsed, evidence, rows, lexicalSignals, moduleOf);
  const out: RankedHit<Row>[] = [];
  for (const candidate of candidates.values()) {
    const row = rows.get(candidate.id);
    if (!row) continue;
    const measured = features(candidate, row, context);
    const { score, fileBonus } = scoreOf(measured, weights);
    const signals: RankSignals = {};
    if (candidate.lexicalRank !== undefined) signals.lexical = candidate.lexicalRank;
    if (candidate.vectorRank !== undefined) {
      signals.vector = candidate.vectorRank;
      signals.similarity = candidate.similarity!;
    }
    if (measured.name) signals.name = measured.name;
    if (lexicalSignals && evidence.definitions.has(row.id)) signals.definition = true;
    if (measured.namedFile) signals.namedFile = true;
    if (measured.path) signals.path = true;
    const tier = lexicalSignals && parsed.exactFirst ? tierOf(row.id, measured, evidence) : 0;
    out.push({ row, score, tier, fileBonus, signals, features: measured, coherence: 0, steps: NO_STEPS });
  }
  addFileCoherence(out, FILE_COHERENCE, moduleOf);
  out.sort(byScore);
  if (parsed.kind === 'prose') orderWithinFiles(out);
  return out;
}

/**
 * Exact first: an agent that types a name wants where it is defined, then
 * every place that holds it, before anything that only shares a sub-word
 * (`convertIPv6BinaryToString` for `convertIPv6ToString`), however well
 * the sub-words score.
 */
function tierOf(id: number, measured: Features, evidence: Evidence): Tier {
  // A file named after the symbol is where a language defines it when its parser names nothing (Channel.kt).
  if ((evidence.definitions.has(id) && measured.name === 'exact') || evidence.namedFileElements?.has(id)) return 3;
  const { spelledAsTyped } = evidence;
  if (spelledAsTyped ? spelledAsTyped.has(id) : evidence.wholeWord?.has(id)) return 2;
  return evidence.definitions.has(id) || evidence.wholeWord?.has(id) ? 1 : 0;
}

/**
 * Evidence of the whole file: a file whose several elements match is more
 * likely the answer than one with a single lucky hit. Each of its elements
 * gets `weight` times the file's summed score over the best file's sum, so
 * files move as a whole and the order inside a file stays the elements' own.
 * All of a file's candidates count. The copies of one module (copies.ts)
 * each take the best sum among them: one text, split over several files,
 * whose candidates each copy holds only some of.
 */
function addFileCoherence<Row extends CandidateRow>(
  sorted: RankedHit<Row>[],
  weight: number,
  moduleOf: ReadonlyMap<string, string>,
): void {
  if (weight <= 0 || sorted.length === 0) return;
  const sums = new Map<number, number>();
  for (const hit of sorted) sums.set(hit.row.fileId, (sums.get(hit.row.fileId) ?? 0) + Math.max(0, hit.score));
  const moduleSums = new Map<string, number>();
  for (const hit of sorted) {
    const module = moduleOf.get(hit.row.path);
    if (module !== undefined) moduleSums.set(module, Math.max(moduleSums.get(module) ?? 0, sums.get(hit.row.fileId)!));
  }
  const sumOf = (row: Row) => {
    const module = moduleOf.get(row.path);
    return module === undefined ? sums.get(row.fileId)! : moduleSums.get(module)!;
  };
  const top = Math.max(...sums.values());
  if (top <= 0) return;
  for (const hit of sorted) {
    hit.coherence = sumOf(hit.row) / top;
    const bonus = weight * hit.coherence;
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
    const reordered = [...hits].sort((a, b) => b.tier - a.tier || key(b) - key(a));
    // Scores sorted best first, as `places` are: each place keeps its score and takes the next hit in the file's new order.
    for (const [j, i] of places.entries())
      if (reordered[j] !== hits[j]) {
        const moved = reordered[j]!;
        const score = hits[j]!.score;
        sorted[i] = { ...moved, score, steps: [...moved.steps, { stage: 'orderInFile', score }] };
      }
  }
}

/**
 * A result list is for finding places: ten windows of one file are one
 * answer. A file's evidence counts once, for its first hit; each further
 * hit of that file keeps only its own evidence (FURTHER_HIT_DECAY less
 * from the third on), then the list is sorted again. A second element of
 * the right file is still listed when it matches well on its own.
 * Copies of one module (`src/x.ts`, `x.js`, `x.d.ts`: copies.ts) are one
 * file here: each holds the same text, so each holds the same evidence again.
 */
function spreadOverFiles<Row extends CandidateRow>(
  ranked: readonly RankedHit<Row>[],
  moduleOf: ReadonlyMap<string, string>,
): RankedHit<Row>[] {
  const listed = new Map<number | string, number>();
  const spread = ranked.map((hit) => {
    const file = moduleOf.get(hit.row.path) ?? hit.row.fileId;
    const before = listed.get(file) ?? 0;
    listed.set(file, before + 1);
    if (before === 0) return hit;
    const decay = FURTHER_HIT_DECAY ** (before - 1);
    const step: RankStep = { stage: 'furtherHit', fileBonus: hit.fileBonus, decay };
    return { ...hit, score: (hit.score - hit.fileBonus) * decay, fileBonus: 0, steps: [...hit.steps, step] };
  });
  return spread.sort(byScore);
}

/**
 * One answer per element, not one per copy a package ships: an element's
 * copies (copies.ts: the same name in the built JavaScript or the
 * declarations of the same module) fold into the one nearest the source,
 * TypeScript before JavaScript before declarations, which takes the best
 * place among them, with the file evidence that place counted (the file
 * stage after this counts it once per module). Two files of one format
 * (`node/x.ts`, `browser/x.ts`) are not copies of each other, and both stay.
 */
function foldCopies<Row extends CandidateRow>(ranked: readonly RankedHit<Row>[]): RankedHit<Row>[] {
  const groups = new Map<string, RankedHit<Row>[]>();
  for (const hit of ranked) {
    const key = copyKey(hit.row.path, hit.row.name);
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group) group.push(hit);
    else groups.set(key, [hit]);
  }
  const folded = new Set<RankedHit<Row>>();
  const replaced = new Map<RankedHit<Row>, RankedHit<Row>>();
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    // Nearest the source first; among equals, the better placed (the list is best first, the sort stable).
    const bySource = [...group].sort((a, b) => copyRank(a.row.path)! - copyRank(b.row.path)!);
    const kept: RankedHit<Row>[] = [];
    for (const hit of bySource) {
      const rank = copyRank(hit.row.path)!;
      const copyOf = kept.some(
        (other) => copyRank(other.row.path)! < rank || copyFormat(other.row.path) !== copyFormat(hit.row.path),
      );
      if (copyOf) folded.add(hit);
      else kept.push(hit);
    }
    const source = kept[0]!;
    const best = group[0]!;
    if (best !== source && folded.has(best))
      replaced.set(source, {
        ...source,
        score: best.score,
        fileBonus: best.fileBonus,
        tier: best.tier,
        steps: [...source.steps, { stage: 'copyOf', score: best.score }],
      });
  }
  if (folded.size === 0) return [...ranked];
  return ranked
    .filter((hit) => !folded.has(hit))
    .map((hit) => replaced.get(hit) ?? hit)
    .sort(byScore);
}

/**
 * One hit per stretch of code: a hit inside a better one (a method of a
 * class already listed) is dropped. A container ranked below its members
 * takes the place of the first of them when those are only fields or
 * constants: they stand for it badly. Only a container short enough for
 * its snippet to show the member stands for it: a long class listed for
 * its name must not hide the method the query describes.
 */
function withoutNested<Row extends CandidateRow>(
  ranked: readonly RankedHit<Row>[],
  k: number,
  shownLines = CONTAINER_SHOWN_LINES,
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
      const score = members[0]!.score;
      kept[at] = { ...hit, score, steps: [...hit.steps, { stage: 'container', score }] };
      for (const member of members.slice(1)) kept.splice(kept.indexOf(member), 1);
    }
  }
  return kept;
}

/** How a hit's score added up: its features' terms (recorded by `scoreOf`, score.ts), its file's coherence, then the later stages. */
function explainScore<Row extends CandidateRow>(hit: RankedHit<Row>, weights: ScoreWeights): ScoreExplanation {
  const terms: ScoreTerm[] = [];
  scoreOf(hit.features, weights, terms);
  let sum = terms.reduce((total, term) => total + term.contribution, 0);
  const push = (term: ScoreTerm) => {
    terms.push(term);
    sum += term.contribution;
  };
  if (hit.coherence > 0)
    push({
      feature: 'fileCoherence',
      op: 'add',
      value: hit.coherence,
      weight: FILE_COHERENCE,
      contribution: FILE_COHERENCE * hit.coherence,
    });
  for (const step of hit.steps) {
    if (step.stage === 'furtherHit') {
      push({ feature: 'fileCountedOnce', op: 'add', value: step.fileBonus, weight: -1, contribution: -step.fileBonus });
      if (step.decay !== 1)
        push({
          feature: 'furtherHit',
          op: 'multiply',
          value: sum,
          weight: step.decay,
          contribution: sum * step.decay - sum,
        });
    } else push({ feature: step.stage, op: 'replace', value: step.score, weight: 1, contribution: step.score - sum });
  }
  return hit.tier > 0 ? { terms, score: hit.score, tier: hit.tier } : { terms, score: hit.score };
}

function byScore<Row extends CandidateRow>(a: RankedHit<Row>, b: RankedHit<Row>): number {
  return (
    b.tier - a.tier || b.score - a.score || a.row.path.localeCompare(b.row.path) || a.row.startLine - b.row.startLine
  );
}
