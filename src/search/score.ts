/**
 * Score, the third stage of the ranking: a candidate's features weighed by
 * the query kind's line of SCORE_WEIGHTS (knobs.ts). The score is the
 * element's own evidence (the two lists, its name) plus its file's (the
 * same for each element of the file), times the priors of its path; the
 * file's part is kept apart, for the stages that count a file once.
 *
 * `scoreTerms` lists the same arithmetic term by term, for `explain`.
 */
import type { FusionWeights } from './fusion.js';
import type { Features } from './features.js';
import { CHANGE_VECTOR_SHARE, CHANGE_WEIGHTS, ROLE_PRIOR, SCORE_WEIGHTS } from './knobs.js';
import type { ParsedQuery } from './query.js';

/** The weight of each feature for one query: its kind's line of SCORE_WEIGHTS (CHANGE_WEIGHTS over it for a change), the mode's fusion weights. */
export type ScoreWeights = { readonly [Feature in keyof typeof SCORE_WEIGHTS]: number };

export function weightsFor(query: Pick<ParsedQuery, 'kind' | 'asksChange'>, fusion: FusionWeights): ScoreWeights {
  const weights = Object.fromEntries(
    Object.entries(SCORE_WEIGHTS).map(([feature, byKind]) => [feature, byKind[query.kind]]),
  ) as Record<keyof typeof SCORE_WEIGHTS, number>;
  if (!query.asksChange) return { ...weights, lexical: fusion.lexical, vector: fusion.vector };
  return { ...weights, ...CHANGE_WEIGHTS, lexical: fusion.lexical, vector: fusion.vector * CHANGE_VECTOR_SHARE };
}

export interface Score {
  score: number;
  /** The part of the score that is the file's evidence. */
  fileBonus: number;
}

/** The features to one score (the order of the additions is part of it: scores are compared to the last bit). */
export function scoreOf(f: Features, w: ScoreWeights): Score {
  let own = w.lexical * f.lexical + w.vector * f.vector;
  if (f.fragment) own *= w.fragment;
  if (f.name) own += f.name === 'exact' ? w.exactName : w.partialName;
  let file = 0;
  if (f.definingFile) file += w.definingFile;
  if (f.namedFile) file += w.namedFile;
  if (f.path) file += w.path;
  file += w.pathWords * f.pathWords + w.fileName * f.fileName * f.fileBm25;
  file += w.fileBm25 * f.fileBm25;
  let prior = f.rolePrior;
  if (f.cHeader) prior *= w.cHeader;
  return { score: (own + file) * prior, fileBonus: file * prior };
}

/** One term of a score, as `explain` shows it. */
export interface ScoreTerm {
  /** The feature (a key of SCORE_WEIGHTS, `role:<role>` of ROLE_PRIOR) or the stage (`fileCoherence`, `orderInFile`, `fileCountedOnce`, `furtherHit`, `container`). */
  feature: string;
  /**
   * add: value × weight is added. multiply: the score so far (value) is
   * multiplied by the weight. replace: a stage gave the result another
   * score (value), taking another's place.
   */
  op: 'add' | 'multiply' | 'replace';
  value: number;
  weight: number;
  /** What the term changed the score by: the contributions add up to the score. */
  contribution: number;
}

/** How a result's score added up. */
export interface ScoreExplanation {
  terms: ScoreTerm[];
  /** The final score, unrounded (the result's `score` is rounded to 6 decimals). */
  score: number;
  /** For a query of names only, the tier that orders results before their scores (ranking.ts, `tierOf`): 3 definition, 2 holds a whole name (as typed, where the index can tell), 1 holds it in another spelling, 0 the rest. */
  tier?: number;
}

/** The terms of `scoreOf`, in its order: the features a candidate has (a weight of 0 shows a feature its kind leaves out). */
export function scoreTerms(f: Features, w: ScoreWeights): ScoreTerm[] {
  const terms: ScoreTerm[] = [];
  const add = (feature: string, value: number, weight: number) =>
    terms.push({ feature, op: 'add', value, weight, contribution: value * weight });
  const multiply = (feature: string, value: number, weight: number) =>
    terms.push({ feature, op: 'multiply', value, weight, contribution: value * weight - value });
  if (f.lexical > 0) add('lexical', f.lexical, w.lexical);
  if (f.vector > 0) add('vector', f.vector, w.vector);
  const fused = w.lexical * f.lexical + w.vector * f.vector;
  if (f.fragment && w.fragment !== 1) multiply('fragment', fused, w.fragment);
  if (f.name)
    add(f.name === 'exact' ? 'exactName' : 'partialName', 1, f.name === 'exact' ? w.exactName : w.partialName);
  if (f.definingFile) add('definingFile', 1, w.definingFile);
  if (f.namedFile) add('namedFile', 1, w.namedFile);
  if (f.path) add('path', 1, w.path);
  if (f.pathWords > 0) add('pathWords', f.pathWords, w.pathWords);
  if (f.fileName > 0 && f.fileBm25 > 0) add('fileName', f.fileName * f.fileBm25, w.fileName);
  if (f.fileBm25 > 0) add('fileBm25', f.fileBm25, w.fileBm25);
  let sum = terms.reduce((total, term) => total + term.contribution, 0);
  for (const role of f.roles) {
    const prior = ROLE_PRIOR[role] ** f.rolePriorPower;
    multiply(`role:${role}`, sum, prior);
    sum *= prior;
  }
  if (f.cHeader && w.cHeader !== 1) multiply('cHeader', sum, w.cHeader);
  return terms;
}
