/**
 * FindReferencesTool: "where is X used?" as a tool an agent can call —
 * the symbol's definitions and every line that names it, from the index
 * alone (Searcher.references). Like CodebaseSearchTool, it checks the
 * model's arguments, asks for permission when told to, keeps secrets out,
 * stays within the size budget, and never throws into the agent loop.
 */
import { lazyValidator } from '../lazy-validator.js';
import { SearchError } from '../search/errors.js';
import type { ReferencesResponse } from '../search/references.js';
import type { SearchService } from '../search/search-service.js';
import { clip, MAX_NOTE_CHARS } from './budget.js';
import { describeErrors, type AgentTool, type CodebaseSearchTool } from './codebase-search-tool.js';
import {
  DEFAULT_REFERENCE_LINES,
  FIND_REFERENCES_DESCRIPTION,
  FIND_REFERENCES_NAME,
  FIND_REFERENCES_OUTPUT,
  FIND_REFERENCES_PARAMETERS,
  type FindReferencesArgs,
  type FindReferencesOutput,
  type ReferenceFileHit,
} from './references-schema.js';
import { isSecretPath, redactSecrets } from './secrets.js';

const validateArgs = lazyValidator<FindReferencesArgs>(FIND_REFERENCES_PARAMETERS);

export class FindReferencesTool implements AgentTool<FindReferencesOutput> {
  readonly name = FIND_REFERENCES_NAME;
  readonly description = FIND_REFERENCES_DESCRIPTION;
  readonly parameters = FIND_REFERENCES_PARAMETERS;
  readonly outputSchema = FIND_REFERENCES_OUTPUT;
  readonly #search: CodebaseSearchTool;

  /** Shares the index, the Searcher, the budget and the permission callback of a CodebaseSearchTool. */
  constructor(search: CodebaseSearchTool) {
    this.#search = search;
  }

  async execute(raw: unknown): Promise<FindReferencesOutput> {
    const symbol = typeof (raw as { symbol?: unknown })?.symbol === 'string' ? (raw as { symbol: string }).symbol : '';
    try {
      if (!validateArgs(raw))
        return failure(
          symbol,
          `invalid arguments: ${describeErrors(validateArgs.errors ?? [], FIND_REFERENCES_PARAMETERS)}`,
        );
      let searcher: SearchService;
      try {
        searcher = await this.#search.openSearcher();
      } catch (error) {
        return failure(symbol, (error as Error).message);
      }
      const permission = await this.#search.ask({ tool: this.name, arguments: raw });
      if (permission !== true) return failure(symbol, `the call was denied${permission ? `: ${permission}` : ''}`);
      let response: ReferencesResponse;
      try {
        response = await searcher.references(raw.symbol, {
          limit: raw.limit ?? DEFAULT_REFERENCE_LINES,
          ...(raw.repos ? { repos: raw.repos } : {}),
        });
      } catch (error) {
        if (error instanceof SearchError && error.code !== 'CLOSED')
          return failure(symbol, `invalid arguments: ${error.message}`);
        throw error;
      }
      return fitReferences(toOutput(response), this.#search.budget.maxOutputChars);
    } catch (error) {
      return failure(symbol, `finding references failed: ${(error as Error).message}`);
    }
  }
}

function toOutput(response: ReferencesResponse): FindReferencesOutput {
  const shown = response.files.reduce((sum, file) => sum + file.sites.length, 0);
  const files: ReferenceFileHit[] = response.files
    .filter((file) => !isSecretPath(file.path))
    .map((file) => ({
      repo: file.repo,
      path: file.path,
      defines: file.defines,
      stale: file.stale,
      lines: file.sites.map((site) => ({
        line: site.line,
        text: site.text === undefined ? null : redactSecrets(site.text),
        call: site.call,
        definition: site.definition,
        ...(site.element ? { in: site.element.name } : {}),
      })),
    }));
  const output: FindReferencesOutput = {
    symbol: response.symbol,
    definitions: response.definitions
      .filter((definition) => !isSecretPath(definition.path))
      .map((definition) => ({
        repo: definition.repo,
        path: definition.path,
        start_line: definition.startLine,
        end_line: definition.endLine,
        element_type: definition.type,
        name: definition.name,
        signature: redactSecrets(definition.signature),
      })),
    files,
    total: response.total,
    total_files: response.totalFiles,
    truncated: response.truncated,
  };
  if (response.total === 0)
    output.note = `${response.name} occurs in no indexed file: check its spelling and case, or search for it with codebase_search`;
  else if (response.truncated) output.note = `${shown} of ${response.total} lines listed: raise limit to see more`;
  return output;
}

/** The answer cut to `maxChars` of JSON: whole files kept first to last, then the lines of the last that fit. */
export function fitReferences(output: FindReferencesOutput, maxChars: number): FindReferencesOutput {
  if (JSON.stringify(output).length <= maxChars) return output;
  const limit = maxChars - MAX_NOTE_CHARS - 20;
  const fitted: FindReferencesOutput = { ...output, files: [], truncated: true };
  let size = JSON.stringify(fitted).length;
  for (const file of output.files) {
    const empty = { ...file, lines: [] as typeof file.lines };
    const emptySize = JSON.stringify(empty).length + 1;
    if (size + emptySize > limit) break;
    size += emptySize;
    for (const line of file.lines) {
      const lineSize = JSON.stringify(line).length + 1;
      if (size + lineSize > limit) break;
      empty.lines.push(line);
      size += lineSize;
    }
    fitted.files.push(empty);
    if (empty.lines.length < file.lines.length) break;
  }
  const listed = fitted.files.reduce((sum, file) => sum + file.lines.length, 0);
  fitted.note = `${listed} of ${output.total} lines listed, to stay within the size budget: narrow with a qualified name or read the files listed`;
  return fitted;
}

function failure(symbol: string, error: string): FindReferencesOutput {
  return {
    symbol,
    definitions: [],
    files: [],
    total: 0,
    total_files: 0,
    truncated: false,
    error: clip(redactSecrets(error), MAX_NOTE_CHARS),
  };
}
