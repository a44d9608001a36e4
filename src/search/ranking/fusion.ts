/**
 * Candidates, the first stage of the ranking: the elements BM25 and k-NN
 * found, each list's scores divided by its best, so that the score stage
 * (score.ts) can weigh them against each other and add names and paths.
 *
 * Scores, not ranks: the evaluation sets (eval/README.md) showed reciprocal
 * rank fusion letting a middling vector hit overtake a clear BM25 winner,
 * because ranks forget how far ahead the winner was. Dividing by the best
 * score keeps that margin and puts both lists on 0..1 without tuning.
 */
import { CANDIDATES_PER_RESULT, MIN_CANDIDATES, SCORE_WEIGHTS } from './knobs.js';
import type { QueryKind } from '../query.js';

export interface FusionWeights {
  lexical: number;
  vector: number;
}

/** The lexical and vector weights of SCORE_WEIGHTS (knobs.ts), by query kind: what a searcher's `weights` option replaces. */
export const DEFAULT_FUSION_WEIGHTS: Readonly<Record<QueryKind, FusionWeights>> = {
  identifier: { lexical: SCORE_WEIGHTS.lexical.identifier, vector: SCORE_WEIGHTS.vector.identifier },
  path: { lexical: SCORE_WEIGHTS.lexical.path, vector: SCORE_WEIGHTS.vector.path },
  prose: { lexical: SCORE_WEIGHTS.lexical.prose, vector: SCORE_WEIGHTS.vector.prose },
};

/**
 * Candidates each list is asked for, for k results (times FILTERED_OVERFETCH where filters may thin
 * the vector list), counted in modules: where the repositories ship each module as several files
 * (`filesPerModule`, ranking/copies.ts), as many times more rows.
 */
export function candidatesWanted(k: number, filesPerModule = 1): number {
  return Math.ceil(Math.max(MIN_CANDIDATES, k * CANDIDATES_PER_RESULT) * filesPerModule);
}

export interface ScoredHit {
  id: number;
  /** Higher is better: BM25 (negated, as FTS5 gives it lower-is-better) or cosine similarity. */
  score: number;
}

/** A candidate as the two lists found it: the first stage of the ranking. */
export interface Candidate {
  id: number;
  /** 1-based rank in the BM25 list, and the BM25 score over the list's best (0 when not in it). */
  lexicalRank?: number;
  lexical: number;
  /** 1-based rank in the k-NN list, the cosine over the list's best (0 when not in it), and the cosine. */
  vectorRank?: number;
  vector: number;
  similarity?: number;
}

/** The candidates of both lists (each best first), the lexical list's first, in its order. */
export function gatherCandidates(lexical: readonly ScoredHit[], vector: readonly ScoredHit[]): Map<number, Candidate> {
  const candidates = new Map<number, Candidate>();
  const entry = (id: number) => {
    let candidate = candidates.get(id);
    if (!candidate) candidates.set(id, (candidate = { id, lexical: 0, vector: 0 }));
    return candidate;
  };
  const lexicalScores = relativeScores(lexical);
  lexical.forEach(({ id }, i) => {
    const candidate = entry(id);
    candidate.lexicalRank = i + 1;
    candidate.lexical = lexicalScores[i]!;
  });
  const vectorScores = relativeScores(vector);
  vector.forEach(({ id, score }, i) => {
    const candidate = entry(id);
    candidate.vectorRank = i + 1;
    candidate.similarity = score;
    candidate.vector = vectorScores[i]!;
  });
  return candidates;
}

/**
 * Each score over the list's best, so the best is 1. A list whose best is
 * not positive (cosines can be) says only its order: 1 down to 0 by rank.
 */
export function relativeScores(list: readonly ScoredHit[]): number[] {
  const best = list[0]?.score ?? 0;
  if (best > 0) return list.map(({ score }) => Math.max(0, score / best));
  return list.map((_, i) => 1 - i / list.length);
}

export type NameMatch = 'exact' | 'partial';

/**
 * How an element's qualified name (`IndexStore.open`) matches an identifier
 * the query spells. Case is ignored, except that an identifier written with
 * capitals names exactly that: `Serialize` is the trait, and a method
 * `serialize` or a field `visitor` only resembles it (partial).
 */
export function nameMatch(name: string, identifiers: readonly string[]): NameMatch | undefined {
  const lower = name.toLowerCase();
  const last = lastSegment(lower);
  let best: NameMatch | undefined;
  for (const identifier of identifiers) {
    const written = identifier.replace(/::|#/g, '.');
    const wanted = written.toLowerCase();
    if (lower === wanted || lower.endsWith(`.${wanted}`)) {
      if (written === wanted || name === written || name.endsWith(`.${written}`)) return 'exact';
      best = 'partial';
    } else if (last === lastSegment(wanted)) best = 'partial';
  }
  return best;
}

function lastSegment(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}
