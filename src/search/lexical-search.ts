/**
 * The lexical half of a search: BM25 over elements (names, signatures,
 * descriptions, paths and their own code), filtered in SQL; the
 * definitions of a symbol the query names and the files named after it;
 * BM25 over whole files for questions in words; and the terms' weights
 * that the query embedder asks for. What it learns about the index's
 * terms holds for one generation of the index, and is cached that long.
 */
import { sumById, type SearchReader } from '../store/search-reader.js';
import type { CompiledFilters } from './filters.js';
import { fileScores } from './file-evidence.js';
import { candidatesWanted, type ScoredHit } from './fusion.js';
import { GenerationCache, MAX_CACHED_TERMS } from './generation-cache.js';
import {
  COMMON_CODE_TERM_SHARE,
  COMMON_TERM_MIN_INDEX,
  COMMON_TERM_SHARE,
  DEFINITION_CANDIDATES,
  NAMED_FILE_ELEMENTS,
  WHOLE_IDENTIFIER_CODE_WEIGHT,
} from './knobs.js';
import { ftsExpression, symbolNames, type ParsedQuery } from './query.js';

export interface LexicalEvidence {
  elements: ScoredHit[];
  /** BM25 over whole files, relative to the best file (prose queries). */
  files?: Map<number, number> | undefined;
  definitions: Set<number>;
  namedFiles: { fileId: number; ids: number[] }[];
  /** For a query of names only (ParsedQuery.exactFirst): the elements holding one of its whole names, in their names or code. */
  wholeWord?: Set<number> | undefined;
}

export const NO_LEXICAL_EVIDENCE: LexicalEvidence = { elements: [], definitions: new Set(), namedFiles: [] };

export class LexicalSearch {
  readonly #reader: SearchReader;
  /** Elements in the index, the base of "common" and of term weights. */
  readonly #elementCount: () => number;
  /**
   * Term weights by term, for the generation of the vectors they were
   * counted against. Counting a common term reads its whole posting list
   * (over a millisecond at 100k elements), and the common terms are the ones
   * every query repeats.
   */
  readonly #termWeights = new GenerationCache<number>(MAX_CACHED_TERMS);
  /**
   * Whether a term is too common to be worth reading, by table: asking
   * FTS5 reads up to COMMON_TERM_SHARE of the index's matches (a tenth of
   * a query's time at 100,000 elements), for words every query repeats.
   */
  readonly #commonTerms = new GenerationCache<boolean>(MAX_CACHED_TERMS);

  constructor(reader: SearchReader, elementCount: () => number) {
    this.#reader = reader;
    this.#elementCount = elementCount;
  }

  /** The evidence for a query, read at `generation` of the index (the snapshot being searched). */
  search(parsed: ParsedQuery, k: number, filters: CompiledFilters, generation: number): LexicalEvidence {
    const limit = candidatesWanted(k);
    if (parsed.kind === 'path') {
      // In file order, not by relevance: a score that only keeps that order.
      const elements = this.#reader
        .pathElements(parsed.paths, filters, limit)
        .map((id, i) => ({ id, score: 1 / (i + 1) }));
      return { ...NO_LEXICAL_EVIDENCE, elements };
    }
    const symbols = symbolNames(parsed);
    const definitions = new Set(this.#reader.definitions(symbols, filters, DEFINITION_CANDIDATES));
    const namedFiles =
      parsed.kind === 'identifier' ? this.#reader.namedFiles(symbols, filters, NAMED_FILE_ELEMENTS) : [];
    const match = this.#matchExpression(parsed.terms, generation);
    // Over code, the terms not too common there (a query of only common words adds nothing in
    // code that the names do not); asked once, as the whole-file evidence reads the same terms.
    const rareInCode = this.#rareTerms(parsed.terms, true, generation);
    const codeMatch = rareInCode ? ftsExpression(rareInCode) : undefined;
    const elements = match || codeMatch ? this.#reader.elementHits(match, codeMatch, filters, limit) : [];
    const files = parsed.kind === 'prose' && rareInCode ? this.#fileEvidence(rareInCode, generation) : undefined;
    const whole = this.#wholeNameHits(parsed, filters, limit);
    return {
      elements: whole.length > 0 ? sumById([elements, whole]) : elements,
      definitions,
      namedFiles,
      files,
      wholeWord: parsed.exactFirst && whole.length > 0 ? new Set(whole.map((hit) => hit.id)) : undefined,
    };
  }

  /**
   * Inverse document frequency of a (stemmed) term among the indexed
   * elements, scaled so that a term in 1% of them weighs 1. FTS5 keeps the
   * counts; a term it does not know (stemmed differently) keeps weight 1.
   */
  termWeight(term: string, generation: number): number {
    const ntotal = this.#elementCount();
    return this.#termWeights.get(generation, term, () => {
      const df = this.#reader.documentFrequency(term);
      return !df || ntotal === 0 ? 1 : Math.log(1 + ntotal / df) / Math.log(101);
    });
  }

  /**
   * BM25 over whole files, on the terms that are not too common in code
   * (the others weigh next to nothing over files too, and would cost a scan
   * of most of the index).
   */
  #fileEvidence(informative: string[], generation: number): Map<number, number> | undefined {
    if (informative.length === 0) return undefined;
    const terms = informative.map((term) => ftsExpression([term])!);
    return fileScores(this.#reader.fileTermCounts(terms, generation));
  }

  /** The terms in at most COMMON_TERM_SHARE (COMMON_CODE_TERM_SHARE in code) of a large index; all of them in a small one; undefined when every term is common. */
  #rareTerms(terms: string[], inCode: boolean, generation: number): string[] | undefined {
    const count = this.#elementCount();
    if (count < COMMON_TERM_MIN_INDEX || terms.length < 2) return terms;
    const threshold = Math.floor(count * (inCode ? COMMON_CODE_TERM_SHARE : COMMON_TERM_SHARE));
    const rare = terms.filter(
      (term) =>
        !this.#commonTerms.get(generation, `${inCode ? 'code' : 'names'}:${term}`, () =>
          this.#reader.matchesMoreThan(ftsExpression([term])!, threshold, inCode),
        ),
    );
    return rare.length > 0 ? rare : undefined;
  }

  /**
   * An identifier the query spells (`NO_INDEX`) also matches, by its parts,
   * every element about "index": the elements that hold the whole name
   * score again on it alone (these hits, added to BM25's), so that they come first.
   */
  #wholeNameHits(parsed: ParsedQuery, filters: CompiledFilters, limit: number): ScoredHit[] {
    const whole = ftsExpression(parsed.wholeTerms);
    if (!whole) return [];
    const codeWeight = parsed.kind === 'identifier' || parsed.exactFirst ? WHOLE_IDENTIFIER_CODE_WEIGHT : undefined;
    return this.#reader.elementHits(whole, whole, filters, limit, codeWeight);
  }

  /**
   * The FTS5 expression for a query's terms. BM25 scores every element that
   * holds any term, so a term in a large share of a large index (`name`,
   * `value`, `ts`) costs tens of milliseconds and adds almost nothing to the
   * ranking (its IDF is near zero): such terms are left out when rarer ones
   * remain. With only common words, the elements holding all of them, else
   * those holding the rarest. Whether a term is that common is asked of
   * FTS5 itself: is there a row past the threshold?
   */
  #matchExpression(terms: string[], generation: number): string | undefined {
    if (terms.length === 0) return undefined;
    const rare = this.#rareTerms(terms, false, generation);
    if (rare) return ftsExpression(rare);
    const all = terms.map((term) => ftsExpression([term])).join(' AND ');
    if (this.#reader.matchesMoreThan(all, 0)) return all;
    return ftsExpression([
      terms.map((term) => ({ term, n: this.#reader.matchCount(ftsExpression([term])!) })).sort((a, b) => a.n - b.n)[0]!
        .term,
    ]);
  }
}
