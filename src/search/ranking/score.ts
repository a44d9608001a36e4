/**
 * Score, the third stage of the ranking: a candidate's features weighed by
 * the query kind's line of SCORE_WEIGHTS (knobs.ts). The score is the
 * element's own evidence (the two lists, its name) plus its file's (the
 * same for each element of the file), times the priors of its path; the
 * file's part is kept apart, for the stages that count a file once.
 *
 * One function, `scoreOf`, weighs every signal; asked to explain, it
 * records each term as it adds it (as zoekt's scorer does), so a new signal
 * is one `add` there and its terms come with it.
 */
import type { FusionWeights } from './fusion.js';
import type { Features } from './features.js';
import { CHANGE_VECTOR_SHARE, CHANGE_WEIGHTS, ROLE_PRIOR, SCORE_WEIGHTS } from './knobs.js';
import type { PathRole } from './path-priors.js';
import type { ParsedQuery } from '../query.js';

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

/**
 * The features to one score: the one place a signal is weighed, by one call
 * to `add` (value × weight) or `multiply` (a factor). With `terms`, the same
 * calls record each term as they make it (`explain`), so the explanation
 * cannot drift from the score; without, they only compute (this runs for
 * every candidate of every query: nothing is allocated but the Score). The order and
 * grouping of the additions are part of the score: scores are compared to
 * the last bit, so an edit here keeps them.
 */
export function scoreOf(f: Features, w: ScoreWeights, terms?: ScoreTerm[]): Score {
  const { add, multiply } = terms ? recording(terms) : SUMMING;
  // The element's own evidence: the two lists (a fragment's scaled down), its name.
  let own = add('lexical', f.lexical, w.lexical) + add('vector', f.vector, w.vector);
  if (f.fragment) own *= multiply('fragment', w.fragment);
  if (f.name) own += f.name === 'exact' ? add('exactName', 1, w.exactName) : add('partialName', 1, w.partialName);
  // The file's evidence, the same for each of its elements: kept apart for the stages that count a file once.
  let file = add('definingFile', one(f.definingFile), w.definingFile);
  file += add('namedFile', one(f.namedFile), w.namedFile);
  file += add('path', one(f.path), w.path);
  file += add('pathWords', f.pathWords, w.pathWords) + add('fileName', f.fileName * f.fileBm25, w.fileName);
  // A request's whole-file BM25 less the words its file holds only as look-alikes (features.ts, asWrittenShare).
  file += add('fileBm25', f.fileBm25 * (f.asWrittenShare ?? 1), w.fileBm25);
  // The path's priors. The roles' multiply as their product (`rolePrior`, features.ts), explained one role a term.
  let prior = f.rolePrior;
  for (const role of f.roles) multiply(ROLE_TERMS[role], ROLE_PRIOR[role] ** f.rolePriorPower);
  if (f.cHeader) prior *= multiply('cHeader', w.cHeader);
  return { score: (own + file) * prior, fileBonus: file * prior };
}

/** What `scoreOf` adds a term with: it returns the term's share of the arithmetic, and records it when explaining. */
interface Tally {
  /** value × weight (a feature the candidate lacks has value 0). */
  add(feature: keyof ScoreWeights, value: number, weight: number): number;
  /** The factor the score so far is multiplied by. */
  multiply(feature: string, factor: number): number;
}

/** The ranking's tally: the arithmetic alone. */
const SUMMING: Tally = { add: (_, value, weight) => value * weight, multiply: (_, factor) => factor };

/**
 * explain's tally: the same arithmetic, each term pushed as it is made. A
 * feature the candidate lacks (value 0) and a factor of 1 are left out;
 * a weight of 0 is shown, as a feature the query's kind leaves out.
 */
function recording(terms: ScoreTerm[]): Tally {
  // The score so far, as the terms add it up.
  let sum = 0;
  return {
    add(feature, value, weight) {
      const contribution = value * weight;
      if (value > 0) {
        terms.push({ feature, op: 'add', value, weight, contribution });
        sum += contribution;
      }
      return contribution;
    },
    multiply(feature, factor) {
      if (factor !== 1) {
        terms.push({ feature, op: 'multiply', value: sum, weight: factor, contribution: sum * factor - sum });
        sum *= factor;
      }
      return factor;
    },
  };
}

const one = (present: boolean) => (present ? 1 : 0);

/** Each role's term name, made once rather than per candidate. */
const ROLE_TERMS = Object.fromEntries(Object.keys(ROLE_PRIOR).map((role) => [role, `role:${role}`])) as Record<
  PathRole,
  string
>;

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
