/**
 * oc-vector-search "query": finds the index of the root it is run in
 * (walking up, as git does) and prints the best matches: file:line, name,
 * score and the code as it is now. --explain shows how each score added
 * up; --json prints the whole response (schema:
 * resources/ocvector/search-output.schema.json).
 */
import { relative, resolve, sep } from 'node:path';
import { Command, Option } from 'commander';
import { TEXT_ELEMENT_TYPES } from '../analysis/element.js';
import { findIndex } from '../search/find-index.js';
import {
  describeEmptyPathFilter,
  type ResolvedPathFilter,
  resolvePathFilter,
  searchedRepositories,
} from '../search/path-filter.js';
import { canonicalLanguage, ELEMENT_TYPES, LANGUAGES } from '../search/filters.js';
import type { ScoreExplanation } from '../search/ranking/score.js';
import {
  MAX_K,
  SEARCH_DEFAULTS,
  Searcher,
  type SearchMode,
  type SearchResponse,
  type SearchResult,
  type SearchEvent,
  type SearcherOptions,
} from '../search/searcher.js';
import { DEFAULT_REFERENCE_SITES, MAX_REFERENCE_SITES, type ReferencesResponse } from '../search/references.js';
import { moreLinesMarker } from '../search/source.js';
import { referencesSummary, renderReferences } from './references-report.js';
import { MAX_ISSUE_LENGTH } from '../search/localise/limits.js';
import { StoreError } from '../store/errors.js';
import { EXIT, UsageError } from './exit.js';
import { configure, parseInteger, parseList, runCommand } from './program.js';
import { colorEnabled, formatDuration, makeStyle, type Style } from './terminal.js';
import { OPENAI_BASE_URL_HELP } from './embedder-choice.js';
import { ollamaOptions, openAIOptions, readEnvironment } from './environment.js';
import { addDeviceOption, addStoreOptions, type DeviceChoice, deviceOptions, storeChoice } from './store-choice.js';
import { findRoot } from '../files/root.js';
import { logLine } from '../mcp/log-line.js';
import { defaultRepositoryName } from '../store/repository-name.js';

interface SearchCliOptions {
  limit?: string;
  path?: string;
  lang?: string;
  type?: string;
  mode: SearchMode;
  db?: string;
  json?: boolean;
  explain?: boolean;
  snippet: boolean;
  snippetLines: string;
  ollamaHost?: string;
  openaiBaseUrl?: string;
  refs?: boolean;
  files?: boolean;
  repo?: string[];
  store?: string;
  schema?: string;
  device?: DeviceChoice;
}

const PROGRAM = 'oc-vector-search';

const TEXT_ELEMENTS: ReadonlySet<string> = new Set(TEXT_ELEMENT_TYPES);

export async function searchMain(argv: readonly string[]): Promise<number> {
  const program = configure(
    new Command(PROGRAM),
    'Search the index of the code around you: hybrid semantic (vector) and lexical (BM25) search.',
  )
    .argument(
      '<query...>',
      'what to look for: words, an identifier (getUserById, Index.search) or a path (src/store); with --files, a whole issue (- reads it from standard input)',
    )
    .option(
      '-k, --limit <n>',
      `results to show, 1 to ${MAX_K} (default 10; with --refs, lines, default ${DEFAULT_REFERENCE_SITES})`,
    )
    .option(
      '--path <path-or-glob>',
      'only files under this directory, this file, or matching this glob (src/**/*.ts, *.py): relative to the current directory, as results are printed, or absolute',
    )
    .option('--lang <languages>', `only these languages, comma-separated (${LANGUAGES.join(', ')})`)
    .option('--type <types>', `only these element types, comma-separated (${ELEMENT_TYPES.join(', ')})`)
    .addOption(
      new Option(
        '--mode <mode>',
        'hybrid, or one side alone (hybrid answers lexically when the embedder is unavailable; vector then fails)',
      )
        .choices(['hybrid', 'lexical', 'vector'])
        .default('hybrid'),
    )
    .option('--db <dir>', 'index directory (default: the nearest .ocvector at or above the current directory)');
  addDeviceOption(addStoreOptions(program))
    .option(
      '--repo <name>',
      'only this repository of the index (repeat for several; default: all of them)',
      (name: string, names: string[] | undefined) => [...(names ?? []), name],
    )
    .option(
      '--ollama-host <url>',
      'Ollama server, for an index built with an Ollama embedding model (default: OLLAMA_HOST, else the one the index was built with)',
    )
    .option(
      '--openai-base-url <url>',
      `${OPENAI_BASE_URL_HELP}, for an index built with one (default: the one the index was built with)`,
    )
    .option('--json', 'the whole response as JSON on stdout')
    .option('--explain', "how each result's score added up: each feature's value, weight and contribution")
    .option(
      '--refs',
      'the query is a symbol (getUserById, Index.search): list its definitions and every line that uses it, by file (-k counts lines, default 2000)',
    )
    .option(
      '--files',
      `which files to change: the query is an issue, a bug report or a request (up to ${MAX_ISSUE_LENGTH.toLocaleString('en-US')} characters, tracebacks and code included); files ranked, with the evidence for each`,
    )
    .option('--no-snippet', 'no code, only locations')
    .option('--snippet-lines <n>', 'lines of code shown per result', '12');

  return runCommand<SearchCliOptions>(program, argv, async (args, options) => {
    const query = (args[0] as string[]).join(' ');
    if (options.refs && options.files) throw new UsageError('--refs and --files ask different questions: give one');
    if (options.refs) return runReferences(query, options);
    if (options.files) return runFiles(query === '-' ? await readStandardInput() : query, options);
    return runSearch(query, options);
  });
}

/** --refs: a symbol's definitions and uses, from the index alone. */
async function runReferences(symbol: string, options: SearchCliOptions): Promise<number> {
  const limit =
    options.limit === undefined ? DEFAULT_REFERENCE_SITES : parseInteger(options.limit, '-k', 1, MAX_REFERENCE_SITES);
  const searcher = await Searcher.open(whereOf(options));
  let response: ReferencesResponse;
  try {
    response = await searcher.references(symbol, { limit, text: options.snippet, ...reposOf(options) });
  } finally {
    searcher.close();
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
    return EXIT.OK;
  }
  process.stdout.write(renderReferences(response, makeStyle(colorEnabled(process.stdout))));
  process.stderr.write(`${makeStyle(colorEnabled(process.stderr)).dim(referencesSummary(response))}\n`);
  return EXIT.OK;
}

/** The repositories --repo names, as a search option. */
function reposOf(options: SearchCliOptions): { repos?: string[] } {
  return options.repo ? { repos: options.repo } : {};
}

/**
 * The index to search: a shared store (--store), where the repository
 * checked out here (named as the indexer names it by default: its
 * directory's name) is read from disk; else --db, else the nearest
 * .ocvector at or above the current directory.
 */
function whereOf(
  options: SearchCliOptions,
): Pick<SearcherOptions, 'store' | 'indexDir' | 'checkouts' | 'vectorIndex' | 'onEvent'> {
  const store = storeChoice(options, readEnvironment());
  if (!store) {
    const { vectorIndex } = deviceOptions(options.device, undefined);
    // One search and exit: a large index's IVF lists are mapped, and only those the query probes are read.
    return {
      indexDir: indexDirOf(options),
      vectorIndex: { ...vectorIndex, mapFile: true },
      onEvent: noteRepositoryOutside,
    };
  }
  deviceOptions(options.device, store);
  const root = findRoot(process.cwd());
  return { store, checkouts: { [defaultRepositoryName(root)]: root } };
}

/** A repository the index records outside the directory holding it is not searched (store/embedded/repositories.ts): a note says so. */
function noteRepositoryOutside(event: SearchEvent): void {
  if (event.type !== 'vector-index' || event.event.type !== 'repository-outside') return;
  const { repository, root, home } = event.event;
  // The names come from the index, which is data: written with no control character left raw.
  const note = `note: the index records the repository ${repository} at ${root}, outside ${home}: it is not searched (index several repositories into a directory of their own, --db <dir>)`;
  process.stderr.write(`${logLine(note)}\n`);
}

/** The embedded index to search: --db, else the nearest .ocvector at or above the current directory. */
function indexDirOf(options: SearchCliOptions): string {
  const found = options.db ? { indexDir: resolve(options.db) } : findIndex(process.cwd());
  if (!found)
    throw new StoreError(
      `no index at or above ${process.cwd()}: run oc-vector-index first (e.g. oc-vector-index .)`,
      'NOT_FOUND',
    );
  return found.indexDir;
}

async function runSearch(query: string, options: SearchCliOptions): Promise<number> {
  const snippetLines = parseInteger(options.snippetLines, '--snippet-lines', 1, 1_000);
  const { response, showRepo, pathFilter } = await askSearcher(options, (searcher, common) =>
    searcher.search(query, { ...common, snippet: options.snippet ? { maxLines: snippetLines } : false }),
  );

  const errStyle = makeStyle(colorEnabled(process.stderr));
  if (response.fallback) process.stderr.write(`${errStyle.warn('warning:')} ${response.fallback.reason}\n`);
  // What the path was matched against, when it left nothing (on stderr with --json too: stdout is the response).
  const emptyNote =
    pathFilter && response.results.length === 0 ? `${describeEmptyPathFilter(pathFilter)}\n` : undefined;
  if (options.json) {
    process.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
    if (emptyNote) process.stderr.write(emptyNote);
    return EXIT.OK;
  }
  const style = makeStyle(colorEnabled(process.stdout));
  process.stdout.write(renderResults(response, style, showRepo));
  const { results, timings } = response;
  process.stderr.write(
    errStyle.dim(
      `${results.length === 0 ? 'no results' : `${results.length} result${results.length === 1 ? '' : 's'}`} in ${formatDuration(timings.totalMs)} (${response.mode}, ${response.kind} query, ${response.elements} elements, ${response.embedder})`,
    ) + '\n',
  );
  if (emptyNote) process.stderr.write(emptyNote);
  return EXIT.OK;
}

/** What a search and a file search share: how many, the mode, the filters, the repositories. */
interface CommonOptions {
  k: number;
  mode: SearchMode;
  path?: string;
  language?: string[];
  type?: string[];
  explain?: boolean;
  repos?: string[];
}

/**
 * Opens the index, resolves --path against the current directory and the
 * repositories (a path names the repositories it lies in: only those are
 * searched), asks, and closes.
 */
async function askSearcher<T>(
  options: SearchCliOptions,
  ask: (searcher: Searcher, common: CommonOptions) => Promise<T>,
): Promise<{ response: T; showRepo: boolean; pathFilter: ResolvedPathFilter | undefined }> {
  const k = parseInteger(options.limit ?? String(SEARCH_DEFAULTS.k), '-k', 1, MAX_K);
  const language = options.lang ? parseList(options.lang, '--lang', LANGUAGES, canonicalLanguage) : undefined;
  const type = options.type ? parseList(options.type, '--type', ELEMENT_TYPES) : undefined;
  const searcher = await Searcher.open({
    ...whereOf(options),
    embedderOptions: { ollama: ollamaOptions(options.ollamaHost), openai: openAIOptions(options.openaiBaseUrl) },
  });
  try {
    const pathFilter =
      options.path === undefined
        ? undefined
        : resolvePathFilter(options.path, process.cwd(), await searchedRepositories(searcher, options.repo));
    const response = await ask(searcher, {
      k,
      mode: options.mode,
      ...(pathFilter?.path !== undefined ? { path: pathFilter.path } : {}),
      ...(language ? { language } : {}),
      ...(type ? { type } : {}),
      ...(options.explain ? { explain: true } : {}),
      ...(pathFilter && pathFilter.repos.length > 0
        ? { repos: pathFilter.repos.map((repository) => repository.name) }
        : reposOf(options)),
    });
    return { response, showRepo: searcher.repositories().length > 1, pathFilter };
  } finally {
    searcher.close();
  }
}

/** --files: the files an issue points at, with the evidence for each. */
async function runFiles(issue: string, options: SearchCliOptions): Promise<number> {
  const { response, showRepo, pathFilter } = await askSearcher(options, (searcher, common) =>
    searcher.searchFiles(issue, common),
  );
  const errStyle = makeStyle(colorEnabled(process.stderr));
  if (response.fallback) process.stderr.write(`${errStyle.warn('warning:')} ${response.fallback.reason}\n`);
  const emptyNote = pathFilter && response.files.length === 0 ? `${describeEmptyPathFilter(pathFilter)}\n` : undefined;
  if (options.json) {
    process.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
    if (emptyNote) process.stderr.write(emptyNote);
    return EXIT.OK;
  }
  // Loaded here: a search of a query, the common case, never renders files.
  const { renderFiles } = await import('./files-report.js');
  process.stdout.write(renderFiles(response, makeStyle(colorEnabled(process.stdout)), showRepo));
  const count = response.files.length;
  process.stderr.write(
    errStyle.dim(
      `${count === 0 ? 'no files' : `${count} file${count === 1 ? '' : 's'}`} in ${formatDuration(response.timings.totalMs)} (${response.mode}; an issue of ${response.length.toLocaleString('en-US')} characters)`,
    ) + '\n',
  );
  if (emptyNote) process.stderr.write(emptyNote);
  return EXIT.OK;
}

/** The query from standard input (`-`), for a text too long or too rich for a command line. */
async function readStandardInput(): Promise<string> {
  if (process.stdin.isTTY)
    throw new UsageError('- reads the issue from standard input: pipe or redirect it (< issue.md)');
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    length += (chunk as Buffer).length;
    // Past the limit the search refuses it anyway: stop reading rather than hold an endless stream.
    if (length > 4 * MAX_ISSUE_LENGTH) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Results as people read them: path:line, type and name, score and signals, then the code with line numbers. */
function renderResults(response: SearchResponse, style: Style, showRepo = false): string {
  const out: string[] = [];
  for (const result of response.results) {
    const where = `${showRepo ? style.dim(`${result.repo} `) : ''}${style.path(displayPath(result))}:${style.line(String(result.startLine))}${result.endLine > result.startLine ? style.dim(`-${result.endLine}`) : ''}`;
    const stale = result.stale ? ` ${style.warn('[stale: changed since indexed]')}` : '';
    out.push(
      `${where}  ${style.dim(result.type)} ${style.bold(result.name)}  ${style.dim(`${result.score.toFixed(3)} ${signalsText(result)}`)}${stale}`,
    );
    // A text window's description is its own text: the snippet shows it better.
    if (result.description && !(TEXT_ELEMENTS.has(result.type) && result.snippet !== undefined))
      out.push(`  ${style.dim(result.description.split('\n')[0]!.slice(0, 160))}`);
    if (result.explain) out.push(...explanationLines(result.explain, style));
    if (result.snippet !== undefined) {
      const lines = result.snippet.split('\n');
      // The snippet may start deep inside the element, at the lines that match.
      const first = result.snippetStartLine ?? result.startLine;
      const width = String(first + lines.length).length;
      if (first > result.startLine)
        out.push(
          `  ${' '.repeat(width)}  ${style.dim(`… (${first - result.startLine} line${first - result.startLine === 1 ? '' : 's'} above)`)}`,
        );
      lines.forEach((line, i) => {
        out.push(`  ${style.dim(`${String(first + i).padStart(width)}│`)} ${line}`);
      });
      if (result.snippetMoreLines)
        out.push(`  ${' '.repeat(width)}  ${style.dim(moreLinesMarker(result.snippetMoreLines))}`);
    } else if (result.problem) out.push(`  ${style.warn(result.problem)}`);
    out.push('');
  }
  return out.join('\n');
}

/**
 * How a score added up, one term a line: `+` a feature's value times its
 * weight, `×` the score so far times a factor, `=` a stage that gave the
 * result another score; each with what it changed the score by.
 */
function explanationLines(explanation: ScoreExplanation, style: Style): string[] {
  const number = (value: number) => value.toFixed(3);
  const signed = (value: number) => (value < 0 ? '-' : '+') + Math.abs(value).toFixed(3);
  const width = Math.max(5, ...explanation.terms.map((term) => term.feature.length));
  const lines = explanation.terms.map((term) => {
    const how =
      term.op === 'add'
        ? `+ ${term.feature.padEnd(width)}  ${number(term.value)} × ${number(term.weight)}`
        : term.op === 'multiply'
          ? `× ${term.feature.padEnd(width)}  ${number(term.value)} × ${number(term.weight)}`
          : `= ${term.feature.padEnd(width)}  → ${number(term.value)}`;
    return `    ${style.dim(how.padEnd(width + 20))} ${signed(term.contribution)}`;
  });
  lines.push(
    `    ${style.dim(`  ${'score'.padEnd(width)}`.padEnd(width + 20))} ${style.bold(number(explanation.score))}`,
  );
  return lines;
}

function signalsText(result: SearchResult): string {
  const s = result.signals;
  const parts = [
    s.lexical && `bm25#${s.lexical}`,
    s.vector && `vector#${s.vector}`,
    s.name && `name:${s.name}`,
    s.definition && 'definition',
    s.namedFile && 'file-name',
    s.path && 'path',
  ].filter(Boolean);
  return `[${parts.join(' ')}]`;
}

/** Relative to the current directory when inside it, so the path can be opened as printed. */
function displayPath(result: SearchResult): string {
  const fromHere = relative(process.cwd(), result.absolutePath);
  return fromHere.startsWith(`..${sep}`) || fromHere === '..' ? result.absolutePath : fromHere.split(sep).join('/');
}
