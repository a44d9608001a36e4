/**
 * One scorer: `scoreOf` records its terms only when asked, and the terms it
 * records add up to the score it returns, for every candidate the fixture's
 * queries score (not only the results shown), and for a candidate with
 * every feature at once.
 */
import { describe, expect, it, vi } from 'vitest';
import type { SearchMode } from '../../../src/index.js';
import type { Features } from '../../../src/search/ranking/features.js';
import { CHANGE_ROLE_PRIOR_POWER, ROLE_PRIOR, SCORE_WEIGHTS } from '../../../src/search/ranking/knobs.js';
import { rolePriorOf } from '../../../src/search/ranking/path-priors.js';
import { scoreOf, weightsFor, type ScoreTerm, type ScoreWeights } from '../../../src/search/ranking/score.js';
import { indexedSearchRepo, LABELS } from '../../helpers/search-repo.js';

/** What the ranking asked `scoreOf`, candidate by candidate. */
const scored: { features: Features; weights: ScoreWeights }[] = [];
vi.mock('../../../src/search/ranking/score.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/search/ranking/score.js')>();
  return {
    ...real,
    scoreOf: (features: Features, weights: ScoreWeights, terms?: ScoreTerm[]) => {
      if (!terms) scored.push({ features, weights });
      return real.scoreOf(features, weights, terms);
    },
  };
});

/** Sentences, a request for a change, names and paths: every line of the weights. */
const QUERIES = [
  ...LABELS.map((label) => label.query),
  'fix the session token expiry check',
  'issueToken',
  'TokenStore',
  'src/auth',
  'csv.ts',
];
const MODES: SearchMode[] = ['hybrid', 'lexical', 'vector'];

const total = (terms: readonly ScoreTerm[]) => terms.reduce((sum, term) => sum + term.contribution, 0);

/** The terms of a score, and the same score asked twice: once plain (as the ranking asks), once explained. */
function explained(features: Features, weights: ScoreWeights) {
  const terms: ScoreTerm[] = [];
  const withTerms = scoreOf(features, weights, terms);
  return { terms, plain: scoreOf(features, weights), withTerms };
}

function expectTermsAddUp(features: Features, weights: ScoreWeights, label: string): ScoreTerm[] {
  const { terms, plain, withTerms } = explained(features, weights);
  // Explaining changes nothing, to the last bit: the ranking does not move.
  expect(Object.is(withTerms.score, plain.score) && Object.is(withTerms.fileBonus, plain.fileBonus), label).toBe(true);
  // The terms add up to the score (up to the rounding of adding them in another order).
  expect(Math.abs(total(terms) - plain.score), label).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(plain.score)));
  return terms;
}

describe('scoreOf, the one scorer', () => {
  const fixture = indexedSearchRepo();

  it("records terms that add up to the score of every candidate of the fixture's queries", async () => {
    for (const query of QUERIES)
      for (const mode of MODES) await fixture.searcher().search(query, { k: 10, mode, explain: true });
    // Taken out before scoring them again here (this file's `scoreOf` is the one that records the calls).
    const asked = scored.splice(0);
    expect(asked.length).toBeGreaterThan(500);
    const seen = new Set<string>();
    for (const { features, weights } of asked)
      for (const term of expectTermsAddUp(features, weights, JSON.stringify(features))) seen.add(term.feature);
    // The fixture's queries reach most features (no C header, no file named after a symbol): the test below has every one.
    const reached = ['lexical', 'vector', 'fragment', 'exactName', 'definingFile', 'path', 'pathWords', 'fileName'];
    for (const feature of [...reached, 'fileBm25', 'role:docs']) expect(seen, feature).toContain(feature);
  });

  it('explains a candidate with every feature, in the order the score adds them, for a request for a change', () => {
    const weights = weightsFor({ kind: 'prose', asksChange: true }, { lexical: 1, vector: 0.5 });
    const roles = ['test', 'docs'] as const;
    const features: Features = {
      lexical: 0.7,
      vector: 0.9,
      fragment: true,
      name: 'partial',
      definingFile: true,
      namedFile: true,
      path: true,
      pathWords: 0.5,
      fileName: 0.5,
      fileBm25: 0.8,
      roles,
      rolePrior: rolePriorOf(roles) ** CHANGE_ROLE_PRIOR_POWER,
      rolePriorPower: CHANGE_ROLE_PRIOR_POWER,
      cHeader: true,
    };
    const terms = expectTermsAddUp(features, weights, 'every feature');
    expect(terms.map((term) => `${term.op} ${term.feature}`)).toEqual([
      'add lexical',
      'add vector',
      'multiply fragment',
      'add partialName',
      'add definingFile',
      'add namedFile',
      'add path',
      'add pathWords',
      'add fileName',
      'add fileBm25',
      'multiply role:test',
      'multiply role:docs',
      'multiply cHeader',
    ]);
    const weightOf = (feature: string) => terms.find((term) => term.feature === feature)!.weight;
    expect(weightOf('role:test')).toBe(ROLE_PRIOR.test ** CHANGE_ROLE_PRIOR_POWER);
    expect(weightOf('cHeader')).toBe(SCORE_WEIGHTS.cHeader.prose);
    expect(weightOf('vector')).toBe(0.5 * 0.5);
  });

  it('leaves out the features a candidate lacks and factors of 1, and shows a weight of 0', () => {
    const weights = weightsFor({ kind: 'identifier', asksChange: false }, { lexical: 1, vector: 0.4 });
    const features: Features = {
      lexical: 1,
      vector: 0,
      fragment: true,
      name: undefined,
      definingFile: true,
      namedFile: false,
      path: false,
      pathWords: 0,
      fileName: 0,
      fileBm25: 0,
      roles: [],
      rolePrior: 1,
      rolePriorPower: 1,
      cHeader: true,
    };
    const terms = expectTermsAddUp(features, weights, 'few features');
    // A fragment and a C header count fully for a name (factor 1); definingFile is a sentence's signal (weight 0).
    expect(terms).toEqual([
      { feature: 'lexical', op: 'add', value: 1, weight: 1, contribution: 1 },
      { feature: 'definingFile', op: 'add', value: 1, weight: 0, contribution: 0 },
    ]);
  });
});
