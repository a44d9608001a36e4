/**
 * The lexical half of a search: BM25 over elements (names, signatures,
 * descriptions, paths and their own code), filtered in the store; the
 * definitions of a symbol the query names and the files named after it;
 * BM25 over whole files for questions in words; and the terms' weights
 * that the query embedder asks for. What it learns about the index's
 * terms holds for one generation of the index, and is cached that long.
 */
import type { LexicalMatch, OccurrenceReads, ScopeReads } from '../store/reads.js';
import { sumById } from '../store/id-scores.js';
import { elementsSpelledAsTyped } from './ranking/exact-spelling.js';
import type { CompiledFilters } from './filters.js';
import { fileScores } from './ranking/file-evidence.js';
import type { ScoredHit } from './ranking/fusion.js';
import { AsyncGenerationCache, MAX_CACHED_TERMS } from './generation-cache.js';
import {
  CHANGE_CODE_WEIGHT,
  COMMON_CODE_TERM_SHARE,
  COMMON_FILE_TERM_SHARE,
  COMMON_TERM_MIN_INDEX,
  COMMON_TERM_SHARE,
  DEFINITION_CANDIDATES,
  NAMED_FILE_ELEMENTS,
  WHOLE_IDENTIFIER_CODE_WEIGHT,
} from './ranking/knobs.js';
import { symbolNames, type ParsedQuery } from './query.js';

export interface LexicalEvidence {
  elements: ScoredHit[];
  /** BM25 over whole files, relative to the best file (prose queries). */
  files?: Map<number, number> | undefined;
  definitions: Set<number>;
  namedFiles: { fileId: number; ids: number[] }[];
  /** For a query of names only (ParsedQuery.exactFirst): the elements holding one of its whole names, in their names or code. */
  wholeWord?: Set<number> | undefined;
  /** Of those, the ones holding a name as typed (search/ranking/exact-spelling.ts). */
  spelledAsTyped?: Set<number> | undefined;
}

export const NO_LEXICAL_EVIDENCE: LexicalEvidence = { elements: [], definitions: new Set(), namedFiles: [] };

/** What a search asks of the lexical half: the reads of its scope, how many elements that scope holds, and its words as written. */
export interface LexicalScope {
  reads: ScopeReads;
  elementCount(): Promise<number>;
  /** The index's words as written and their lines (for a name's spelling), in `roots`; all of the index's when not `scoped`. */
  occurrences: OccurrenceReads;
  roots: readonly number[];
  scoped: boolean;
}

/** A term alone, as a match. */
const one = (term: string): LexicalMatch => ({ terms: [term] });

export class LexicalSearch {
  /**
   * Term weights by term, for the generation of the vectors they were
   * counted against. Counting a common term reads its whole posting list
   * (over a millisecond at 100k elements), and the common terms are the ones
   * every query repeats.
   */
  readonly #termWeights = new AsyncGenerationCache<number>(MAX_CACHED_TERMS);
  /**
   * Whether a term is too common to be worth reading, by table: asking
   * the store reads up to COMMON_TERM_SHARE of the index's matches (a tenth
   * of a query's time at 100,000 elements), for words every query repeats.
   */
  readonly #commonTerms = new AsyncGenerationCache<boolean>(MAX_CACHED_TERMS);

  /** The evidence for a query, read at `generation` of the index (the snapshot being searched), `limit` candidates a list. */
  async search(
    scope: LexicalScope,
    parsed: ParsedQuery,
    limit: number,
    filters: CompiledFilters,
    generation: number,
  ): Promise<LexicalEvidence> {
    const { reads } = scope;
    const conditions = filters.conditions;
    if (parsed.kind === 'path') {
      // In file order, not by relevance: a score that only keeps that order.
      const elements = (await reads.pathElements(parsed.paths, conditions, limit)).map((id, i) => ({
        id,
        score: 1 / (i + 1),
      }));
      return { ...NO_LEXICAL_EVIDENCE, elements };
    }
    const symbols = symbolNames(parsed);
    const definitions = new Set(await reads.definitions(symbols, conditions, DEFINITION_CANDIDATES));
    const namedFiles =
      parsed.kind === 'identifier' ? await reads.namedFiles(symbols, conditions, NAMED_FILE_ELEMENTS) : [];
    const match = await this.#match(scope, parsed.terms, generation);
    // Over code, the terms not too common there (a query of only common words adds nothing in
    // code that the names do not).
    const rareInCode = await this.#rareTerms(scope, parsed.terms, 'code', generation);
    const codeMatch = rareInCode && rareInCode.length > 0 ? { terms: rareInCode } : undefined;
    const codeWeight = parsed.asksChange ? CHANGE_CODE_WEIGHT : undefined;
    const elements = match || codeMatch ? await reads.elementHits(match, codeMatch, conditions, limit, codeWeight) : [];
    const fileTerms =
      parsed.kind === 'prose' ? await this.#rareTerms(scope, parsed.terms, 'files', generation) : undefined;
    const files = fileTerms ? await this.#fileEvidence(reads, fileTerms, generation) : undefined;
    const [whole, spelledAsTyped] = await Promise.all([
      this.#wholeNameHits(reads, parsed, filters, limit),
      elementsSpelledAsTyped(scope.occurrences, parsed, scope.scoped ? scope.roots : undefined),
    ]);
    return {
      elements: whole.length > 0 ? sumById([elements, whole]) : elements,
      definitions,
      namedFiles,
      files,
      wholeWord: parsed.exactFirst && whole.length > 0 ? new Set(whole.map((hit) => hit.id)) : undefined,
      spelledAsTyped,
    };
  }

  /**
   * Inverse document frequency of (stemmed) terms among the indexed
   * elements, scaled so that a term in 1% of them weighs 1. The store keeps
   * the counts; a term it does not know (stemmed differently) keeps weight 1.
   */
  async termWeights(scope: LexicalScope, terms: readonly string[], generation: number): Promise<Map<string, number>> {
    const ntotal = await scope.elementCount();
    // The terms not known yet are counted in one read.
    const unknown = terms.filter((term) => !this.#termWeights.has(generation, term));
    const counted = unknown.length > 0 ? scope.reads.documentFrequencies(unknown) : undefined;
    const weights = await Promise.all(
      terms.map((term) =>
        this.#termWeights.get(generation, term, async () => {
          // A term the cache let go of since: counted alone.
          const df = (await (counted ?? scope.reads.documentFrequencies([term]))).get(term);
          return !df || ntotal === 0 ? 1 : Math.log(1 + ntotal / df) / Math.log(101);
        }),
      ),
    );
    return new Map(terms.map((term, i) => [term, weights[i]!]));
  }

  /**
   * BM25 over whole files, on the terms in at most COMMON_FILE_TERM_SHARE of
   * a large index's code (a word in more weighs next to nothing over files
   * too, and would cost a scan of most of the index).
   */
  async #fileEvidence(
    reads: ScopeReads,
    informative: string[],
    generation: number,
  ): Promise<Map<number, number> | undefined> {
    if (informative.length === 0) return undefined;
    return fileScores(await reads.fileTermCounts(informative.map(one), generation));
  }

  /**
   * The terms in at most a share of a large index's elements, by where they are read
   * (COMMON_TERM_SHARE in names, COMMON_CODE_TERM_SHARE in code, COMMON_FILE_TERM_SHARE
   * for the whole-file evidence); all of them in a small one; undefined when every term is common.
   */
  async #rareTerms(
    scope: LexicalScope,
    terms: string[],
    where: 'names' | 'code' | 'files',
    generation: number,
  ): Promise<string[] | undefined> {
    const count = await scope.elementCount();
    if (count < COMMON_TERM_MIN_INDEX || terms.length < 2) return terms;
    const share =
      where === 'names' ? COMMON_TERM_SHARE : where === 'code' ? COMMON_CODE_TERM_SHARE : COMMON_FILE_TERM_SHARE;
    const threshold = Math.floor(count * share);
    const inCode = where !== 'names';
    const common = await Promise.all(
      terms.map((term) =>
        this.#commonTerms.get(generation, `${where}:${term}`, () =>
          scope.reads.matchesMoreThan(one(term), threshold, inCode),
        ),
      ),
    );
    const rare = terms.filter((_, i) => !common[i]);
    return rare.length > 0 ? rare : undefined;
  }

  /**
   * An identifier the query spells (`NO_INDEX`) also matches, by its parts,
   * every element about "index": the elements that hold the whole name
   * score again on it alone (these hits, added to BM25's), so that they come first.
   */
  async #wholeNameHits(
    reads: ScopeReads,
    parsed: ParsedQuery,
    filters: CompiledFilters,
    limit: number,
  ): Promise<ScoredHit[]> {
    if (parsed.wholeTerms.length === 0) return [];
    const whole = { terms: parsed.wholeTerms };
    const codeWeight = parsed.kind === 'identifier' || parsed.exactFirst ? WHOLE_IDENTIFIER_CODE_WEIGHT : undefined;
    return reads.elementHits(whole, whole, filters.conditions, limit, codeWeight);
  }

  /**
   * The match for a query's terms. BM25 scores every element that holds any
   * term, so a term in a large share of a large index (`name`, `value`,
   * `ts`) costs tens of milliseconds and adds almost nothing to the ranking
   * (its IDF is near zero): such terms are left out when rarer ones remain.
   * With only common words, the elements holding all of them, else those
   * holding the rarest. Whether a term is that common is asked of the store
   * itself: is there a row past the threshold?
   */
  async #match(scope: LexicalScope, terms: string[], generation: number): Promise<LexicalMatch | undefined> {
    if (terms.length === 0) return undefined;
    const rare = await this.#rareTerms(scope, terms, 'names', generation);
    if (rare) return { terms: rare };
    const all = { terms, all: true };
    if (await scope.reads.matchesMoreThan(all, 0)) return all;
    const counts = await Promise.all(terms.map((term) => scope.reads.matchCount(one(term))));
    const rarest = terms.map((term, i) => ({ term, n: counts[i]! })).sort((a, b) => a.n - b.n)[0]!;
    return one(rarest.term);
  }
}
