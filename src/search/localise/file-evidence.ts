/**
 * What points at each file, for the question "which file do I change?":
 * the evidence an issue's parts give (search/localise/issue-reading.ts),
 * gathered from one snapshot of the index. Each kind is a feature of the
 * file, weighed by file-ranking.ts:
 *
 * - frame: a traceback passes through it (the innermost frame in the project most);
 * - path: the text names it (in prose, code, or a link into the repository);
 * - module: a dotted name spells its module (`sklearn.feature_extraction.text`);
 * - defines: it defines names the issue spells (a name defined in few files counts most);
 * - mentions: it holds those names (as written, weighed by their rarity);
 * - error: its code holds the words of an error message the issue quotes;
 * - text: BM25 over the whole file, on the issue's rarest words;
 * - elements: its elements rank in an element search of the issue (added by file-search.ts).
 */
import { posix } from 'node:path';
import type { IndexedFile } from '../../store/reads.js';
import { splitIdentifier, words } from '../../text/terms.js';
import { compileFilters, type CompiledFilters, type SearchFilters } from '../filters.js';
import { detectLanguage } from '../../analysis/language-names.js';
import { fileScores } from '../ranking/file-evidence.js';
import type { LexicalSearch, LexicalScope } from '../lexical-search.js';
import { nameSegments, searchTerms } from '../query.js';
import type { IssueReading, TraceFrame } from './issue-reading.js';

export type FeatureName = 'frame' | 'path' | 'module' | 'defines' | 'mentions' | 'error' | 'text' | 'elements';
export const FEATURES: readonly FeatureName[] = [
  'frame',
  'path',
  'module',
  'defines',
  'mentions',
  'error',
  'text',
  'elements',
];

/** A file and what points at it: each feature's value, and the sentences that say why. */
export interface FileCandidate {
  file: IndexedFile;
  features: Partial<Record<FeatureName, number>>;
  evidence: Partial<Record<FeatureName, string[]>>;
}

/** How many names are looked up, the surest first: an issue's code block may spell hundreds. */
const MAX_NAMES = 60;
/** How many of them are looked for where they occur (one read each). */
const MAX_MENTIONED = 30;
/** Definitions read per lookup: a name defined in more files than this says little anyway. */
const MAX_DEFINITIONS = 2_000;
/** The rarest words of an issue BM25 over whole files reads. */
const MAX_FILE_TERMS = 60;
/** Error messages searched, and elements read per message. */
const MAX_ERRORS = 5;
const ERROR_HITS = 20;
/** Frames, paths and dotted names matched at most (each a scan of the index's paths): the deepest frames, the first paths. */
const MAX_FRAMES = 30;
const MAX_PATHS = 50;
/** A path named by its last segments only counts when it matches at most this many files. */
const MAX_SUFFIX_MATCHES = 3;

/** The index's view of one search, as file-search.ts hands it over. */
export interface EvidenceScope extends LexicalScope {
  lexical: LexicalSearch;
  generation: number;
}

/** Gathers the evidence of every kind but `elements` for the files of `scope`; with the files it read. */
export async function gatherEvidence(
  scope: EvidenceScope,
  issue: IssueReading,
  requested: SearchFilters,
): Promise<{ candidates: Map<string, FileCandidate>; files: IndexedFile[] }> {
  const filters = compileFilters(requested);
  const files = await scope.reads.files();
  // A file is kept by the path and language filters (its language told by its name); element types
  // narrow only the element reads (definitions, errors, the element search).
  const byFile = compileFilters({
    ...(requested.path !== undefined ? { path: requested.path } : {}),
    ...(requested.language !== undefined ? { language: requested.language } : {}),
  });
  const keep = (file: IndexedFile) =>
    byFile.matches({ path: file.path, language: detectLanguage(file.path), type: 'file' });
  const candidates = new Map<string, FileCandidate>();
  const add = (file: IndexedFile, feature: FeatureName, value: number, why: string) => {
    if (!keep(file)) return;
    const key = fileKey(file);
    let candidate = candidates.get(key);
    if (!candidate) candidates.set(key, (candidate = { file, features: {}, evidence: {} }));
    candidate.features[feature] = (candidate.features[feature] ?? 0) + value;
    const said = (candidate.evidence[feature] ??= []);
    if (said.length < 3 && !said.includes(why)) said.push(why);
  };

  const byPath = new PathIndex(files);
  for (const frame of deepestFrames(issue.frames))
    for (const file of byPath.find(frame.path))
      add(file, 'frame', 0.5 + 0.5 * frame.depth, `in the traceback${frame.name ? ` (${frame.name})` : ''}`);
  for (const path of issue.paths.slice(0, MAX_PATHS))
    for (const file of byPath.find(path)) add(file, 'path', 1, `named: ${path}`);
  for (const dotted of [...issue.dotted, ...qualifiedNames(issue)].slice(0, MAX_PATHS))
    for (const { file, share } of byPath.modules(dotted)) add(file, 'module', share, `module of ${dotted}`);

  const names = [...issue.names].sort((a, b) => b[1] - a[1]).slice(0, MAX_NAMES);
  await addDefinitions(scope, names, filters, add);
  await addMentions(scope, names.slice(0, MAX_MENTIONED), files.length, add, byPath);
  await addErrors(scope, issue.errors, filters, add);
  await addFileText(scope, issue, add, byPath);
  return { candidates, files };
}

/** Each frame once (a traceback repeated, a recursion), the deepest MAX_FRAMES. */
function deepestFrames(frames: readonly TraceFrame[]): TraceFrame[] {
  const deepest = new Map<string, TraceFrame>();
  for (const frame of frames) {
    const key = `${frame.path}\0${frame.name ?? ''}`;
    if ((deepest.get(key)?.depth ?? -1) < frame.depth) deepest.set(key, frame);
  }
  return [...deepest.values()].sort((a, b) => b.depth - a.depth).slice(0, MAX_FRAMES);
}

export function fileKey(file: { rootId: number; fileId: number }): string {
  return `${file.rootId}:${file.fileId}`;
}

type Add = (file: IndexedFile, feature: FeatureName, value: number, why: string) => void;

/** Each file defining a name the issue spells: the name's weight over the root of the number of files defining it. */
async function addDefinitions(
  scope: EvidenceScope,
  names: readonly [string, number][],
  filters: CompiledFilters,
  add: Add,
): Promise<void> {
  const bySegment = new Map<string, { name: string; weight: number }>();
  for (const [name, weight] of names) {
    const last = nameSegments(name).at(-1)!.toLowerCase();
    if (last.length >= 3 && (bySegment.get(last)?.weight ?? 0) < weight) bySegment.set(last, { name, weight });
  }
  if (bySegment.size === 0) return;
  const ids = await scope.reads.definitions([...bySegment.keys()], filters.conditions, MAX_DEFINITIONS);
  const rows = await scope.reads.rows(ids);
  const filesOf = new Map<string, Map<string, IndexedFile>>();
  for (const row of rows.values()) {
    const segment = nameSegments(row.name).at(-1)!.toLowerCase();
    if (!bySegment.has(segment)) continue;
    let files = filesOf.get(segment);
    if (!files) filesOf.set(segment, (files = new Map()));
    files.set(fileKey(row), { fileId: row.fileId, rootId: row.rootId, path: row.path });
  }
  for (const [segment, files] of filesOf) {
    const { name, weight } = bySegment.get(segment)!;
    const specificity = 1 / Math.sqrt(files.size);
    for (const file of files.values()) add(file, 'defines', weight * specificity, `defines ${name}`);
  }
}

/** Each file holding a name as written, weighed by the name's rarity among files (inverse document frequency). */
async function addMentions(
  scope: EvidenceScope,
  names: readonly [string, number][],
  fileCount: number,
  add: Add,
  byPath: PathIndex,
): Promise<void> {
  const words = new Map<string, number>();
  for (const [name, weight] of names)
    for (const segment of nameSegments(name))
      if (segment.length >= 4 && (words.get(segment) ?? 0) < weight) words.set(segment, weight);
  const roots = scope.scoped ? scope.roots : undefined;
  for (const [word, weight] of words) {
    const found = await scope.occurrences.files(word, roots);
    if (found.length === 0 || found.length > fileCount / 4) continue;
    const idf = Math.log(1 + fileCount / found.length);
    for (const file of found) {
      const indexed = byPath.get(file.rootId, file.fileId);
      if (indexed) add(indexed, 'mentions', weight * idf, `uses ${word}`);
    }
  }
}

/**
 * The words of each error message, as a phrase against code: a message is
 * written where it is raised. A message's quoted values and numbers are the
 * user's own: the phrase is each run of words between them.
 */
async function addErrors(
  scope: EvidenceScope,
  errors: readonly string[],
  filters: CompiledFilters,
  add: Add,
): Promise<void> {
  const phrases = [
    ...new Set(
      errors.slice(0, MAX_ERRORS).flatMap((message) =>
        message
          .split(/'[^']*'|"[^"]*"|`[^`]*`|\d+|[<>()[\]{}:;,=]/)
          .map((part) => part.trim().replace(/\s+/g, ' '))
          .filter((part) => part.split(' ').length >= 3),
      ),
    ),
  ];
  for (const phrase of phrases) {
    const match = { terms: [phrase.toLowerCase()] };
    const hits = await scope.reads.elementHits(undefined, match, filters.conditions, ERROR_HITS, 1);
    const rows = await scope.reads.rows(hits.map((hit) => hit.id));
    const seen = new Set<string>();
    for (const row of rows.values()) {
      const key = fileKey(row);
      if (seen.has(key)) continue;
      seen.add(key);
      add({ fileId: row.fileId, rootId: row.rootId, path: row.path }, 'error', 1, `raises "${phrase}"`);
    }
  }
}

/**
 * BM25 over whole files on the issue's rarest words (MAX_FILE_TERMS, by
 * their weight in the index times how often the issue says them): a long
 * issue's words are many, and the common ones cost a scan and weigh nothing.
 */
async function addFileText(scope: EvidenceScope, issue: IssueReading, add: Add, byPath: PathIndex): Promise<void> {
  const counts = new Map<string, number>();
  for (const term of searchTerms(words(issue.text))) counts.set(term, 0);
  for (const word of words(issue.text))
    for (const part of [word.toLowerCase().replace(/[_$]/g, ''), ...splitIdentifier(word)])
      if (counts.has(part)) counts.set(part, counts.get(part)! + 1);
  const terms = [...counts.keys()];
  if (terms.length === 0) return;
  const weights = await scope.lexical.termWeights(scope, terms, scope.generation);
  const chosen = terms
    .map((term) => ({ term, value: (weights.get(term) ?? 0) * Math.log(1 + (counts.get(term) ?? 1)) }))
    .filter(({ value }) => value > 0)
    .sort((a, b) => b.value - a.value)
    .slice(0, MAX_FILE_TERMS)
    .map(({ term }) => term);
  if (chosen.length === 0) return;
  const scores = fileScores(
    await scope.reads.fileTermCounts(
      chosen.map((term) => ({ terms: [term] })),
      scope.generation,
    ),
  );
  for (const [fileId, score] of scores) {
    const file = byPath.byId(fileId);
    if (file) add(file, 'text', score, 'its words');
  }
}

/** The names the issue writes with `::` (`tokio::sync::watch::Receiver`): module paths as much as dotted ones. */
function qualifiedNames(issue: IssueReading): string[] {
  return [...issue.names.keys()].filter((name) => name.includes('::')).map((name) => name.split('::').join('.'));
}

/** Folders that hold a project's sources without naming a module (`src/`, `lib/`, `main/java/`). */
const SOURCE_FOLDERS = new Set(['src', 'lib', 'main', 'java', 'kotlin', 'scala', 'python', 'source', 'sources']);
/** File names that stand for their folder's module (`__init__.py`, `mod.rs`, `index.js`). */
const FOLDER_MODULES = new Set(['__init__', 'mod', 'index', 'lib', 'main']);

/** The index's files, found by the paths and module names a text writes. */
class PathIndex {
  readonly #files: readonly IndexedFile[];
  readonly #byKey = new Map<string, IndexedFile>();
  readonly #byFileId = new Map<number, IndexedFile>();
  #moduleKeys: Map<string, IndexedFile[]> | undefined;

  constructor(files: readonly IndexedFile[]) {
    this.#files = files;
    for (const file of files) {
      this.#byKey.set(fileKey(file), file);
      this.#byFileId.set(file.fileId, file);
    }
  }

  get(rootId: number, fileId: number): IndexedFile | undefined {
    return this.#byKey.get(fileKey({ rootId, fileId }));
  }

  /** By file id alone (whole-file BM25 names files so; ids are unique within what one scope reads). */
  byId(fileId: number): IndexedFile | undefined {
    return this.#byFileId.get(fileId);
  }

  /**
   * The files a written path names: the path itself, or a file whose path
   * ends with it; else with fewer of its leading folders (a traceback's
   * `/venv/lib/python3.9/site-packages/pkg/mod.py` is the project's
   * `pkg/mod.py`), down to the name alone when few files have it.
   */
  find(written: string): IndexedFile[] {
    const segments = written.split('/').filter((segment) => segment && segment !== '.' && segment !== '..');
    for (let start = 0; start < segments.length; start++) {
      const suffix = segments.slice(start).join('/');
      const found = this.#files.filter((file) => file.path === suffix || file.path.endsWith(`/${suffix}`));
      if (found.length === 0) continue;
      const last = start === segments.length - 1;
      return last && found.length > MAX_SUFFIX_MATCHES ? [] : found;
    }
    return [];
  }

  /**
   * The files whose module a dotted name spells, with the share of the name
   * they cover: `django.db.models.query.QuerySet` -> django/db/models/query.py
   * (4 of 5 segments). Two segments at least.
   */
  modules(dotted: string): { file: IndexedFile; share: number }[] {
    const segments = dotted.toLowerCase().split('.');
    const keys = this.#modules();
    for (let end = segments.length; end >= 2; end--) {
      const found = keys.get(segments.slice(0, end).join('/'));
      // A key several files answer to (`utils/compat`) is shared among them.
      if (found) return found.map((file) => ({ file, share: end / segments.length / found.length }));
    }
    return [];
  }

  /** Each file under every module key it answers to: its path less extension, source folders and folder-module names, and each tail of that. */
  #modules(): Map<string, IndexedFile[]> {
    if (this.#moduleKeys) return this.#moduleKeys;
    const keys = new Map<string, IndexedFile[]>();
    for (const file of this.#files) {
      const parsed = posix.parse(file.path.toLowerCase());
      const parts = [...parsed.dir.split('/').filter(Boolean), parsed.name].filter(
        (part, i, all) => !SOURCE_FOLDERS.has(part) && !(i === all.length - 1 && FOLDER_MODULES.has(part)),
      );
      for (let start = 0; start < parts.length - 1; start++) {
        const key = parts.slice(start).join('/');
        const list = keys.get(key);
        if (list) list.push(file);
        else keys.set(key, [file]);
      }
    }
    this.#moduleKeys = keys;
    return keys;
  }
}
