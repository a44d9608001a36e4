/**
 * CodebaseSearchTool: the index as one tool an agent can call. It checks a
 * model's arguments against the published schema, keeps them inside the
 * indexed root, asks for permission when told to, runs the Searcher, and
 * answers with a stable, size-bounded structure. It never throws into the
 * agent loop: every failure is an answer that says what went wrong.
 */
import type { ErrorObject } from 'ajv';
import { lazyValidator } from '../lazy-validator.js';
import { canonicalLanguage } from '../search/filters.js';
import { findIndex } from '../search/find-index.js';
import { SearcherPool } from '../search/pool/searcher-pool.js';
import type { SearchService } from '../search/search-service.js';
import {
  Searcher,
  type EmbedderStatus,
  type SearcherOptions,
  type SearchResponse,
  type SearchResult,
} from '../search/searcher.js';
import { withMoreLines } from '../search/source.js';
import { StoreError } from '../store/errors.js';
import { clip, fitToBudget, MAX_NOTE_CHARS, resolveBudget, type ToolBudget } from './budget.js';
import { emptyPrefixNote, type PathScope, refusalOf, scopePathPrefix } from './path-scope.js';
import {
  CODEBASE_SEARCH_DESCRIPTION,
  CODEBASE_SEARCH_NAME,
  CODEBASE_SEARCH_OUTPUT,
  CODEBASE_SEARCH_PARAMETERS,
  DEFAULT_TOOL_K,
  type CodebaseSearchArgs,
  type CodebaseSearchExplanation,
  type CodebaseSearchHit,
  type CodebaseSearchOutput,
} from './schema.js';
import type { FindFilesArgs } from './files-schema.js';
import type { FindReferencesArgs } from './references-schema.js';
import { isSecretPath, redactSecrets } from './secrets.js';

/** A tool as agent frameworks see it: a name, when to use it, its arguments, and a call that always answers. */
export interface AgentTool<Output = unknown> {
  readonly name: string;
  readonly description: string;
  readonly parameters: object;
  execute(args: unknown): Promise<Output>;
}

/** A call to approve, its arguments checked against its tool's schema: by tool name. */
export type PermissionRequest =
  | { tool: 'codebase_search'; arguments: CodebaseSearchArgs }
  | { tool: 'find_references'; arguments: FindReferencesArgs }
  | { tool: 'find_files_to_change'; arguments: FindFilesArgs };

export type PermissionDecision = boolean | { allow: boolean; reason?: string };

/** Approves or denies each call (after its arguments are checked). A throw counts as a denial. */
export type PermissionCallback = (request: PermissionRequest) => PermissionDecision | Promise<PermissionDecision>;

export interface CodebaseSearchToolOptions {
  /** The index directory. Default: the nearest `.ocvector` at or above `cwd`. */
  indexDir?: string;
  /** Where to look for the index when `indexDir` is not given. Default: the current directory. */
  cwd?: string;
  /** A Searcher (or SearcherPool) already open (the tool then leaves closing it to the caller). */
  searcher?: SearchService;
  /** Options for the Searcher the tool opens (with `store`, a shared store instead of an index directory). */
  searcherOptions?: Omit<SearcherOptions, 'indexDir'>;
  /**
   * Searches on this many worker threads (a SearcherPool: a server of many
   * agents); 0 or none, on the calling thread. With an `embedder` object or
   * a store already open in searcherOptions, which cannot cross to another
   * thread, searches stay on the calling thread.
   */
  searchWorkers?: number;
  /** Size limits of the answer (JSON characters) and of each snippet. */
  budget?: Partial<ToolBudget>;
  permission?: PermissionCallback;
}

const BUILD_ONE = 'build one with oc-vector-index (or the reindex tool)';

const validateArgs = lazyValidator<CodebaseSearchArgs>(CODEBASE_SEARCH_PARAMETERS);

export class CodebaseSearchTool implements AgentTool<CodebaseSearchOutput> {
  readonly name = CODEBASE_SEARCH_NAME;
  readonly description = CODEBASE_SEARCH_DESCRIPTION;
  readonly parameters = CODEBASE_SEARCH_PARAMETERS;
  readonly outputSchema = CODEBASE_SEARCH_OUTPUT;
  readonly budget: ToolBudget;
  readonly #options: CodebaseSearchToolOptions;
  #searcher: Promise<SearchService> | undefined;

  constructor(options: CodebaseSearchToolOptions = {}) {
    this.#options = options;
    this.budget = resolveBudget(options.budget);
    if (options.searcher) this.#searcher = Promise.resolve(options.searcher);
  }

  async execute(args: unknown): Promise<CodebaseSearchOutput> {
    try {
      return await this.#execute(args);
    } catch (error) {
      return failure(`the search failed: ${(error as Error).message}`);
    }
  }

  /** Whether semantic search works now (else answers are keyword matches): see Searcher.embedderStatus. */
  async embedderStatus(): Promise<EmbedderStatus> {
    return (await this.openSearcher()).embedderStatus();
  }

  /** Closes the Searcher the tool opened (a later call opens it again). */
  async close(): Promise<void> {
    const searcher = this.#searcher;
    this.#searcher = undefined;
    if (searcher && !this.#options.searcher) await (await searcher.catch(() => undefined))?.close();
  }

  async #execute(raw: unknown): Promise<CodebaseSearchOutput> {
    if (!validateArgs(raw)) return failure(`invalid arguments: ${describeErrors(validateArgs.errors ?? [])}`);
    const args = raw;

    let searcher: SearchService;
    try {
      searcher = await this.openSearcher();
    } catch (error) {
      return failure((error as Error).message);
    }

    // Checked against the repositories this search reads, before the permission prompt (path-scope.ts).
    let scope: PathScope | undefined;
    try {
      if (args.path_prefix !== undefined) scope = await scopePathPrefix(searcher, args.path_prefix, args.repos);
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal !== undefined) return failure(refusal);
      throw error;
    }
    const pathPrefix = scope?.path;
    const repos = scope ? scope.repos : args.repos;

    const permission = await this.ask({ tool: this.name, arguments: args });
    if (permission !== true) return failure(`the call was denied${permission ? `: ${permission}` : ''}`);

    let response: SearchResponse;
    try {
      response = await searcher.search(args.query, {
        k: args.k ?? DEFAULT_TOOL_K,
        mode: 'hybrid',
        ...(pathPrefix ? { path: pathPrefix } : {}),
        ...(args.language ? { language: canonicalLanguage(args.language)! } : {}),
        ...(args.element_type ? { type: args.element_type } : {}),
        ...(repos ? { repos } : {}),
        ...(args.explain ? { explain: true } : {}),
        snippet: { maxLines: this.budget.snippetMaxLines, maxChars: this.budget.snippetMaxChars },
      });
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal !== undefined) return failure(refusal);
      throw error;
    }
    return this.#answer(response, args, pathPrefix && scope ? scope : undefined);
  }

  /** The Searcher (or pool) behind the tool, opened on first use (find_references and find_files_to_change share it). */
  openSearcher(): Promise<SearchService> {
    if (!this.#searcher) {
      const opening = (async () => {
        // A shared store names itself: there is no directory to look for.
        if (this.#options.searcherOptions?.store) return this.#open({ ...this.#options.searcherOptions });
        const indexDir = this.#options.indexDir ?? findIndex(this.#options.cwd ?? process.cwd())?.indexDir;
        if (!indexDir)
          throw new StoreError(`no index at or above ${this.#options.cwd ?? process.cwd()}: ${BUILD_ONE}`, 'NOT_FOUND');
        try {
          return await this.#open({ ...this.#options.searcherOptions, indexDir });
        } catch (error) {
          if (error instanceof StoreError && error.code === 'NOT_FOUND')
            throw new StoreError(`no index at ${indexDir} yet: ${BUILD_ONE}`, 'NOT_FOUND');
          throw error;
        }
      })();
      this.#searcher = opening;
      // A failed open (no index yet) is tried again on the next call.
      opening.catch(() => {
        if (this.#searcher === opening) this.#searcher = undefined;
      });
    }
    return this.#searcher;
  }

  #open(options: SearcherOptions): Promise<SearchService> {
    const workers = this.#options.searchWorkers ?? 0;
    if (workers === 0) return Searcher.open(options);
    const { embedder, store, ...crossing } = options;
    if (embedder) return Searcher.open(options); // an embedder object stays on this thread, and the searches with it
    if (typeof store === 'object' && 'read' in store) return Searcher.open(options);
    return SearcherPool.open({ ...crossing, ...(store === undefined ? {} : { store }), workers });
  }

  /** Asks the permission callback: true, or the reason for a denial ('' when none was given). */
  async ask(request: PermissionRequest): Promise<true | string> {
    const permission = this.#options.permission;
    if (!permission) return true;
    try {
      const decision = await permission(request);
      if (decision === true || (typeof decision === 'object' && decision.allow)) return true;
      return typeof decision === 'object' ? (decision.reason ?? '') : '';
    } catch (error) {
      return `the permission check failed (${(error as Error).message})`;
    }
  }

  #answer(
    response: SearchResponse,
    args: CodebaseSearchArgs,
    prefix: Pick<PathScope, 'path' | 'searched'> | undefined,
  ): CodebaseSearchOutput {
    const hits = response.results.filter((result) => !isSecretPath(result.path)).map(toHit);
    const fitted = fitToBudget(hits, response.fallback !== undefined, this.budget.maxOutputChars);
    const notes: string[] = [];
    if (response.fallback)
      notes.push(`semantic search is unavailable (${response.fallback.reason}), so these are keyword matches only`);
    if (hits.length === 0) notes.push(emptyNote(args, prefix));
    if (fitted.truncated)
      notes.push(
        'some results or snippets were left out to stay within the size budget: narrow the query, lower k or use path_prefix',
      );
    return notes.length > 0 ? { ...fitted, note: clip(notes.join('; '), MAX_NOTE_CHARS) } : fitted;
  }
}

function toHit(result: SearchResult): CodebaseSearchHit {
  return {
    repo: result.repo,
    path: result.path,
    start_line: result.startLine,
    end_line: result.endLine,
    element_type: result.type,
    name: result.name,
    signature: redactSecrets(result.signature),
    description: redactSecrets(result.description),
    score: roundScore(result.score),
    // A model reads the snippet as text: the count of lines left out is said in it.
    snippet:
      result.snippet === undefined ? null : redactSecrets(withMoreLines(result.snippet, result.snippetMoreLines)),
    ...(result.snippetStartLine !== undefined ? { snippet_start_line: result.snippetStartLine } : {}),
    stale: result.stale,
    ...(result.explain ? { explain: explanationOf(result.explain) } : {}),
  };
}

/** The Searcher's explanation, its numbers rounded as the score is (the score itself is the hit's). */
function explanationOf({ terms, tier }: NonNullable<SearchResult['explain']>): CodebaseSearchExplanation {
  const rounded = terms.map(({ feature, op, value, weight, contribution }) => ({
    feature,
    op,
    value: roundScore(value),
    weight: roundScore(weight),
    contribution: roundScore(contribution),
  }));
  return tier === undefined ? { terms: rounded } : { terms: rounded, tier };
}

/** 4 decimals: what a score says to a model. */
export function roundScore(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/** What to try after an empty answer; with path_prefix, what it was matched as (path-scope.ts). */
function emptyNote(args: CodebaseSearchArgs, prefix: Pick<PathScope, 'path' | 'searched'> | undefined): string {
  const generic = genericNote(args);
  return prefix ? emptyPrefixNote(generic, prefix) : generic;
}

function genericNote(args: CodebaseSearchArgs): string {
  const filters = [
    args.path_prefix && 'path_prefix',
    args.language && 'language',
    args.element_type && 'element_type',
  ].filter(Boolean);
  return filters.length > 0
    ? `nothing matched with ${filters.join(', ')} set: try without ${filters.length > 1 ? 'them' : 'it'}, or other words`
    : 'nothing matched: try other words (what the code does), or an exact identifier';
}

function failure(error: string): CodebaseSearchOutput {
  return { results: [], fallback_used: false, error: clip(redactSecrets(error), MAX_NOTE_CHARS) };
}

/** Ajv's errors as one sentence a model can act on; `schema` names the arguments allowed. */
export function describeErrors(
  errors: readonly ErrorObject[],
  schema: { properties: object } = CODEBASE_SEARCH_PARAMETERS,
): string {
  return errors
    .map((error) => {
      const field = error.instancePath.replace(/^\//, '');
      switch (error.keyword) {
        case 'required':
          return `"${(error.params as { missingProperty: string }).missingProperty}" is required`;
        case 'additionalProperties':
          return `unknown argument "${(error.params as { additionalProperty: string }).additionalProperty}" (allowed: ${Object.keys(schema.properties).join(', ')})`;
        case 'enum':
          return `${field} must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
        case 'type':
          return field
            ? `${field} must be ${withArticle((error.params as { type: string }).type)}`
            : 'the arguments must be an object';
        default:
          return `${field || 'the arguments'} ${error.message ?? 'is invalid'}`;
      }
    })
    .join('; ');
}

function withArticle(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
