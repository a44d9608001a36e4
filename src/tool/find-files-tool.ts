/**
 * FindFilesTool: "which files do I change?" as a tool an agent can call —
 * an issue, a bug report or a task, whole, answered with ranked files and
 * the evidence for each (Searcher.searchFiles). Like CodebaseSearchTool, it
 * checks the model's arguments, keeps path_prefix inside the repositories,
 * asks for permission when told to, keeps secrets out, stays within the
 * size budget, and never throws into the agent loop.
 */
import { lazyValidator } from '../lazy-validator.js';
import type { FileSearchResponse } from '../search/localise/file-search.js';
import type { SearchService } from '../search/search-service.js';
import { clip, MAX_NOTE_CHARS } from './budget.js';
import { describeErrors, roundScore, type AgentTool, type CodebaseSearchTool } from './codebase-search-tool.js';
import {
  DEFAULT_FILES_LIMIT,
  FIND_FILES_DESCRIPTION,
  FIND_FILES_NAME,
  FIND_FILES_OUTPUT,
  FIND_FILES_PARAMETERS,
  type FileHit,
  type FindFilesArgs,
  type FindFilesOutput,
} from './files-schema.js';
import { emptyPrefixNote, refusalOf, scopePathPrefix, type PathScope } from './path-scope.js';
import { isSecretPath, redactSecrets } from './secrets.js';

const validateArgs = lazyValidator<FindFilesArgs>(FIND_FILES_PARAMETERS);

/**
 * The longest piece of evidence handed over: one quotes the issue (a path,
 * an error message), and a file's share of the answer must not depend on
 * what someone wrote in it.
 */
const MAX_SAID_CHARS = 200;

export class FindFilesTool implements AgentTool<FindFilesOutput> {
  readonly name = FIND_FILES_NAME;
  readonly description = FIND_FILES_DESCRIPTION;
  readonly parameters = FIND_FILES_PARAMETERS;
  readonly outputSchema = FIND_FILES_OUTPUT;
  readonly #search: CodebaseSearchTool;

  /** Shares the index, the Searcher, the budget and the permission callback of a CodebaseSearchTool. */
  constructor(search: CodebaseSearchTool) {
    this.#search = search;
  }

  async execute(raw: unknown): Promise<FindFilesOutput> {
    try {
      return await this.#execute(raw);
    } catch (error) {
      return failure(`finding files failed: ${(error as Error).message}`);
    }
  }

  async #execute(raw: unknown): Promise<FindFilesOutput> {
    if (!validateArgs(raw))
      return failure(`invalid arguments: ${describeErrors(validateArgs.errors ?? [], FIND_FILES_PARAMETERS)}`);
    let searcher: SearchService;
    try {
      searcher = await this.#search.openSearcher();
    } catch (error) {
      return failure((error as Error).message);
    }
    let scope: PathScope | undefined;
    try {
      if (raw.path_prefix !== undefined) scope = await scopePathPrefix(searcher, raw.path_prefix, raw.repos);
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal === undefined) throw error;
      return failure(refusal);
    }
    const permission = await this.#search.ask({ tool: this.name, arguments: raw });
    if (permission !== true) return failure(`the call was denied${permission ? `: ${permission}` : ''}`);

    const repos = scope ? scope.repos : raw.repos;
    let response: FileSearchResponse;
    try {
      response = await searcher.searchFiles(raw.issue, {
        k: raw.limit ?? DEFAULT_FILES_LIMIT,
        ...(scope?.path ? { path: scope.path } : {}),
        ...(repos ? { repos } : {}),
      });
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal === undefined) throw error;
      return failure(refusal);
    }
    const files = response.files.filter((file) => !isSecretPath(file.path)).map(toHit);
    const fitted = fitFiles(files, response.fallback !== undefined, this.#search.budget.maxOutputChars);
    const notes: string[] = [];
    if (response.fallback)
      notes.push(
        `semantic search is unavailable (${response.fallback.reason}), so the code elements were matched by keywords only`,
      );
    if (files.length === 0) {
      const generic = scope?.path
        ? 'no file matched with path_prefix set: try without it'
        : 'no file matched: give the issue whole (its error messages, tracebacks and the names it mentions), or search with codebase_search';
      notes.push(scope?.path ? emptyPrefixNote(generic, scope) : generic);
    }
    if (fitted.truncated)
      notes.push(
        `${fitted.files.length} of ${files.length} files listed, some with less evidence, to stay within the size budget: lower limit or use path_prefix`,
      );
    return notes.length > 0 ? { ...fitted, note: clip(notes.join('; '), MAX_NOTE_CHARS) } : fitted;
  }
}

function toHit(file: FileSearchResponse['files'][number]): FileHit {
  return {
    repo: file.repo,
    path: file.path,
    score: roundScore(file.score),
    // Evidence quotes names and phrases from the index and the issue: a credential among them stays out.
    evidence: file.evidence.map(({ kind, said }) => ({
      kind,
      said: said.map((text) => clip(redactSecrets(text), MAX_SAID_CHARS)),
    })),
  };
}

/**
 * The files that fit in `maxChars` of JSON, best first: each whole, else
 * with the first piece of each kind of its evidence, else with its
 * strongest kinds only; the list ends at the first file that fits in none
 * of these. `truncated` is set when anything was cut.
 */
export function fitFiles(files: readonly FileHit[], fallbackUsed: boolean, maxChars: number): FindFilesOutput {
  const limit = maxChars - MAX_NOTE_CHARS - 20;
  const kept: FileHit[] = [];
  let size = JSON.stringify({ files: [], fallback_used: fallbackUsed, truncated: true }).length;
  let truncated = false;
  for (const file of files) {
    const room = limit - size - (kept.length > 0 ? 1 : 0);
    const fitted = fitFile(file, room);
    if (!fitted) {
      truncated = true;
      break;
    }
    if (fitted !== file) truncated = true;
    kept.push(fitted);
    size += JSON.stringify(fitted).length + (kept.length > 1 ? 1 : 0);
  }
  return truncated
    ? { files: kept, fallback_used: fallbackUsed, truncated }
    : { files: kept, fallback_used: fallbackUsed };
}

function fitFile(file: FileHit, room: number): FileHit | undefined {
  const fits = (hit: FileHit) => JSON.stringify(hit).length <= room;
  if (fits(file)) return file;
  const first = { ...file, evidence: file.evidence.map(({ kind, said }) => ({ kind, said: said.slice(0, 1) })) };
  // The strongest kinds come first: drop from the end while it does not fit.
  for (let keep = first.evidence.length; keep >= 0; keep--) {
    const shorter = { ...first, evidence: first.evidence.slice(0, keep) };
    if (fits(shorter)) return shorter;
  }
  return undefined;
}

function failure(error: string): FindFilesOutput {
  return { files: [], fallback_used: false, error: clip(redactSecrets(error), MAX_NOTE_CHARS) };
}
