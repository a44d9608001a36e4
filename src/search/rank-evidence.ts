/**
 * A search's evidence ranked (search/ranking/ranking.ts): the rows of every
 * candidate either half found that passes the filters, weighed by the mode
 * (hybrid: the query kind's fusion weights).
 */
import type { ElementRecord } from '../store/rows.js';
import type { CompiledFilters } from './filters.js';
import type { LexicalEvidence } from './lexical-search.js';
import type { ParsedQuery } from './query.js';
import type { FusionWeights, ScoredHit } from './ranking/fusion.js';
import { rankCandidates, type Evidence, type RankedHit } from './ranking/ranking.js';
import type { SearchMode } from './response.js';
import type { SearchScope } from './scopes.js';

export async function rankEvidence(
  scope: SearchScope,
  parsed: ParsedQuery,
  lexical: LexicalEvidence,
  vectorHits: ScoredHit[],
  filters: CompiledFilters,
  {
    k,
    mode,
    explain,
    weights,
    filesPerModule,
  }: {
    k: number;
    mode: SearchMode;
    explain: boolean;
    weights?: FusionWeights | undefined;
    /** How many times deeper the lists were fetched for shipped copies (SearchScope.filesPerModule). */
    filesPerModule: number;
  },
): Promise<RankedHit<ElementRecord>[]> {
  const fusion =
    mode === 'lexical' ? { lexical: 1, vector: 0 } : mode === 'vector' ? { lexical: 0, vector: 1 } : weights!;
  const ids = new Set<number>([
    ...lexical.elements.map((hit) => hit.id),
    ...vectorHits.map((hit) => hit.id),
    ...lexical.definitions,
    ...lexical.namedFiles.flatMap((file) => file.ids),
    ...(lexical.spelledAsTyped ?? []),
  ]);
  const rows = await scope.reads.rows([...ids]);
  // Gone since the vectors were brought level (an indexer committed meanwhile), or filtered out.
  for (const [id, row] of rows) if (!filters.matches(row)) rows.delete(id);
  const evidence: Evidence = {
    lexical: lexical.elements,
    vector: vectorHits,
    definitions: lexical.definitions,
    namedFiles: new Set(lexical.namedFiles.map((file) => file.fileId)),
    namedFileElements: new Set(lexical.namedFiles.flatMap((file) => file.ids)),
    files: lexical.files,
    wholeWord: lexical.wholeWord,
    spelledAsTyped: lexical.spelledAsTyped,
  };
  return rankCandidates(parsed, evidence, rows, {
    k,
    weights: fusion,
    lexicalSignals: mode !== 'vector',
    explain,
    filesPerModule,
  });
}
