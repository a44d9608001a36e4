/**
 * Features, the second stage of the ranking: what is measured of each
 * candidate, by one function (`features`), before anything is weighed. The
 * score stage (score.ts) weighs them by the query's kind.
 */
import { isCodeElementType } from '../../analysis/element.js';
import { nameMatch, type Candidate, type NameMatch, type ScoredHit } from './fusion.js';
import { CHANGE_ROLE_PRIOR_POWER, FRAGMENT_TYPES } from './knobs.js';
import {
  heldBackRoles,
  meaningfulWords,
  pathWordMatch,
  requestedRoles,
  rolePriorOf,
  type PathRole,
  type PathWordMatch,
} from './path-priors.js';
import { lookAlikeShareByFile } from './look-alikes.js';
import type { ParsedQuery } from '../query.js';
import type { ElementRecord } from '../../store/rows.js';

/** An element as ranking sees it: the columns of its record that ranking reads (tests pass plain objects of just these). */
export type CandidateRow = Pick<ElementRecord, 'id' | 'fileId' | 'path' | 'type' | 'name' | 'startLine' | 'endLine'> &
  Partial<Pick<ElementRecord, 'language' | 'signature' | 'description'>>;

/** What the two halves of the search found for a query. */
export interface Evidence {
  /** BM25 over elements (their names, signatures, descriptions, paths and own code), best first. */
  lexical: readonly ScoredHit[];
  /** Cosine similarity of element vectors, best first. */
  vector: readonly ScoredHit[];
  /** Elements that define the symbol the query names, found by name. */
  definitions: ReadonlySet<number>;
  /** Files named after the symbol the query names (`Router` -> Router.php), by file id. */
  namedFiles: ReadonlySet<number>;
  /** The first elements of those files, where such a file defines its symbol. */
  namedFileElements?: ReadonlySet<number> | undefined;
  /** BM25 over whole files, each file's score over the best file's (prose queries). */
  files?: ReadonlyMap<number, number> | undefined;
  /** For a query of names only: the elements that hold one of its whole names. */
  wholeWord?: ReadonlySet<number> | undefined;
  /** Of those, the ones that hold a name as typed (`starts_with`, where `startsWith` is the same whole name to BM25); undefined when not told. */
  spelledAsTyped?: ReadonlySet<number> | undefined;
}

/** What is measured of one candidate: numbers from 0 to 1, and yes or no. */
export interface Features {
  /** BM25 over elements, over the best hit's (0 when BM25 did not find it). */
  lexical: number;
  /** Cosine over the best hit's (0 when k-NN did not find it). */
  vector: number;
  /** A field, property or constant (FRAGMENT_TYPES). */
  fragment: boolean;
  /** A code element whose name is an identifier the query spells. */
  name: NameMatch | undefined;
  /** Its file defines, by its exact name, a symbol the query names. */
  definingFile: boolean;
  /** Its file is named after the symbol the query names. */
  namedFile: boolean;
  /** Its path contains a path the query names. */
  path: boolean;
  /** The share of the query's words (a sentence's) that the file's or its directory's name spells. */
  pathWords: number;
  /** The share of the file name's words that the query (a sentence) spells. */
  fileName: number;
  /** BM25 over whole files, the file's over the best file's. */
  fileBm25: number;
  /**
   * For a request for a change whose words its file's candidates hold only in a look-alike
   * form (`atomic` for `atomically`, in their names, signatures and descriptions): the share of
   * the request's words, by weight, not held that way (look-alikes.ts); it scales fileBm25.
   * Undefined (1) otherwise.
   */
  asWrittenShare?: number;
  /** The roles of its path that the query did not ask for, and the product of their priors (each raised to rolePriorPower). */
  roles: readonly PathRole[];
  rolePrior: number;
  /** 1, or CHANGE_ROLE_PRIOR_POWER for a request for a change. */
  rolePriorPower: number;
  /** A C header. */
  cHeader: boolean;
}

/** What the features of every candidate of one query share, worked out once. */
export interface FeatureContext {
  parsed: ParsedQuery;
  evidence: Evidence;
  /** Whether the lexical side's signals count (not for a vector-only search): names, paths, files. */
  lexicalSignals: boolean;
  /** The roles the query asks for (`test` in "how is X tested"): those are not held back. */
  requested: ReadonlySet<PathRole>;
  /** The query's words, lower case, split at punctuation: a plain-text file whose format they name is not held back. */
  words: ReadonlySet<string>;
  /** A sentence's words worth matching against paths (none for a name or a path). */
  keywords: readonly string[];
  /** The files that define a symbol the query names by its exact name. */
  definingFiles: ReadonlySet<number>;
  /** pathWordMatch by path, as a file's elements share it. */
  pathMatches: Map<string, PathWordMatch>;
  /** For a request for a change: lookAlikeShareByFile of its candidates, by file id. */
  spelled: ReadonlyMap<number, number> | undefined;
  /** Whole-file BM25 by file id, the copies of one module (copies.ts) each with the best of theirs. */
  fileBm25: ReadonlyMap<number, number> | undefined;
}

export function featureContext<Row extends CandidateRow>(
  parsed: ParsedQuery,
  evidence: Evidence,
  rows: ReadonlyMap<number, Row>,
  lexicalSignals: boolean,
  /** The module each candidate file is a copy of, where it ships copies (copies.ts `sharedModules`). */
  moduleOf: ReadonlyMap<string, string>,
): FeatureContext {
  const queryWords = parsed.text.split(/\s+/);
  const split = queryWords.flatMap((word) => word.split(/[^\p{L}\p{N}]+/u));
  const keywords = parsed.kind === 'prose' ? meaningfulWords(queryWords) : [];
  return {
    parsed,
    evidence,
    lexicalSignals,
    requested: requestedRoles(split),
    words: new Set(split.map((word) => word.toLowerCase())),
    keywords,
    definingFiles: lexicalSignals ? filesDefining(parsed, evidence, rows) : new Set(),
    pathMatches: new Map(),
    spelled:
      lexicalSignals && parsed.asksChange && keywords.length > 0
        ? lookAlikeShareByFile(keywords, rows.values())
        : undefined,
    fileBm25: evidence.files && fileBm25OverCopies(evidence.files, rows.values(), moduleOf),
  };
}

/**
 * One module shipped as copies (`src/x.ts`, `x.js`, `x.cjs`) is one text, and its elements are
 * its file's evidence alike: each copy takes the best whole-file BM25 among them (a build's
 * shorter copy scores higher), so no copy's weak element outranks the module's best one for it.
 */
function fileBm25OverCopies(
  files: ReadonlyMap<number, number>,
  rows: Iterable<CandidateRow>,
  moduleOf: ReadonlyMap<string, string>,
): ReadonlyMap<number, number> {
  if (moduleOf.size === 0) return files;
  const fileIds = new Map<string, number>();
  for (const row of rows) fileIds.set(row.path, row.fileId);
  const best = new Map<string, number>();
  for (const [path, module] of moduleOf)
    best.set(module, Math.max(best.get(module) ?? 0, files.get(fileIds.get(path)!) ?? 0));
  const out = new Map(files);
  for (const [path, module] of moduleOf) out.set(fileIds.get(path)!, best.get(module)!);
  return out;
}

/** The features of one candidate. */
export function features(candidate: Candidate, row: CandidateRow, context: FeatureContext): Features {
  const { parsed, evidence, lexicalSignals } = context;
  const fileBm25 = context.fileBm25?.get(row.fileId) ?? 0;
  const roles = heldBackRoles(row.path, context.requested, row.language ?? undefined, context.words);
  const rolePriorPower = parsed.asksChange ? CHANGE_ROLE_PRIOR_POWER : 1;
  const measured: Features = {
    lexical: candidate.lexical,
    vector: candidate.vector,
    fragment: FRAGMENT_TYPES.has(row.type),
    name: undefined,
    definingFile: false,
    namedFile: false,
    path: false,
    pathWords: 0,
    fileName: 0,
    fileBm25,
    roles,
    rolePrior: rolePriorOf(roles) ** rolePriorPower,
    rolePriorPower,
    cHeader: row.language === 'c' && row.path.endsWith('.h'),
  };
  // Names, paths and files are the lexical side's evidence: a vector-only search leaves them out.
  if (!lexicalSignals) return measured;
  if (parsed.identifiers.length > 0 && isCodeElementType(row.type))
    measured.name = nameMatch(row.name, parsed.identifiers);
  measured.definingFile = context.definingFiles.has(row.fileId);
  const spelled = context.spelled?.get(row.fileId);
  if (spelled !== undefined) measured.asWrittenShare = spelled;
  measured.namedFile = evidence.namedFiles.has(row.fileId);
  measured.path = parsed.paths.length > 0 && parsed.paths.some((hint) => row.path.toLowerCase().includes(hint));
  if (context.keywords.length > 0) {
    let match = context.pathMatches.get(row.path);
    if (!match) context.pathMatches.set(row.path, (match = pathWordMatch(row.path, context.keywords)));
    measured.pathWords = match.share;
    measured.fileName = match.coverage;
  }
  return measured;
}

/**
 * The files that define a symbol the query names by its exact name
 * ("Ecto.Repo behaviour for database interactions" -> repo.ex).
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
