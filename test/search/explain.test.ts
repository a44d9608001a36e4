/**
 * `explain` on the labelled fixture: each result says how its score added
 * up, the terms add up to the score, and asking changes no result.
 */
import { describe, expect, it } from 'vitest';
import type { SearchMode, SearchResult } from '../../src/index.js';
import { DEFAULT_FUSION_WEIGHTS } from '../../src/search/ranking/fusion.js';
import { FILE_COHERENCE, ROLE_PRIOR, SCORE_WEIGHTS } from '../../src/search/ranking/knobs.js';
import type { ScoreTerm } from '../../src/search/ranking/score.js';
import { indexedSearchRepo, LABELS } from '../helpers/search-repo.js';

const STAGES = ['fileCoherence', 'orderInFile', 'fileCountedOnce', 'furtherHit', 'container'];
const FEATURES = [...Object.keys(SCORE_WEIGHTS), ...Object.keys(ROLE_PRIOR).map((role) => `role:${role}`), ...STAGES];
const MODES: SearchMode[] = ['hybrid', 'lexical', 'vector'];
/** Sentences, names and paths: every kind of query, so every line of the weights is used. */
const QUERIES = [...LABELS.map((label) => label.query), 'issueToken', 'TokenStore', 'src/auth', 'csv.ts'];

const total = (terms: readonly ScoreTerm[]) => terms.reduce((sum, term) => sum + term.contribution, 0);

describe('explain on the labelled fixture', () => {
  const fixture = indexedSearchRepo();

  it('each result has terms that add up to its score, and the same results as without explain', async () => {
    const seen = new Set<string>();
    for (const query of QUERIES)
      for (const mode of MODES) {
        const plain = await fixture.searcher().search(query, { k: 10, mode });
        const explained = await fixture.searcher().search(query, { k: 10, mode, explain: true });
        const strip = ({ explain: _, ...result }: SearchResult) => result;
        expect(explained.results.map(strip), `${mode} "${query}"`).toEqual(plain.results);
        expect(plain.results.length, `${mode} "${query}"`).toBeGreaterThan(0);
        for (const result of plain.results) expect(result.explain).toBeUndefined();
        for (const result of explained.results) {
          const explanation = result.explain!;
          expect(explanation.terms.length, `${mode} "${query}" ${result.name}`).toBeGreaterThan(0);
          expect(total(explanation.terms)).toBeCloseTo(explanation.score, 9);
          expect(Math.abs(explanation.score - result.score)).toBeLessThanOrEqual(5e-7);
          for (const term of explanation.terms) {
            expect(FEATURES).toContain(term.feature);
            seen.add(term.feature);
            if (term.op === 'add') expect(term.contribution).toBeCloseTo(term.value * term.weight, 12);
            if (term.op === 'multiply') expect(term.contribution).toBeCloseTo(term.value * (term.weight - 1), 12);
          }
        }
      }
    // The fixture exercises the two lists, names, paths, the file's evidence and the later stages.
    for (const feature of ['lexical', 'vector', 'exactName', 'path', 'fileBm25', 'fileCoherence', 'fileCountedOnce'])
      expect(seen, feature).toContain(feature);
  });

  it("weighs each feature by the query kind's line of SCORE_WEIGHTS, the two lists by the mode", async () => {
    const weightOf = (result: SearchResult, feature: string) =>
      result.explain!.terms.find((term) => term.feature === feature)?.weight;

    const sentence = await fixture.searcher().search('hash a password with a salt', { k: 5, explain: true });
    expect(sentence.kind).toBe('prose');
    const top = sentence.results[0]!;
    expect(weightOf(top, 'lexical')).toBe(DEFAULT_FUSION_WEIGHTS.prose.lexical);
    expect(weightOf(top, 'vector')).toBe(DEFAULT_FUSION_WEIGHTS.prose.vector);
    expect(weightOf(top, 'fileBm25')).toBe(SCORE_WEIGHTS.fileBm25.prose);
    expect(weightOf(top, 'fileCoherence')).toBe(FILE_COHERENCE);

    const name = await fixture.searcher().search('issueToken', { k: 3, explain: true });
    expect(name.kind).toBe('identifier');
    const exact = name.results.find((result) => result.signals.name === 'exact')!;
    expect(weightOf(exact, 'exactName')).toBe(SCORE_WEIGHTS.exactName.identifier);

    const lexical = await fixture
      .searcher()
      .search('hash a password with a salt', { k: 3, mode: 'lexical', explain: true });
    expect(weightOf(lexical.results[0]!, 'lexical')).toBe(1);
    expect(lexical.results.every((result) => weightOf(result, 'vector') === undefined)).toBe(true);
  });
});
