/**
 * What clients list of each tool of the MCP server: names, titles,
 * descriptions, annotations, and the JSON schemas of their arguments and
 * answers (codebase_search's, find_references' and find_files_to_change's are the agent tools' own,
 * so that MCP clients and the agent adapters see the very same schema).
 * registry.ts joins each to its handler and its access.
 */
import { REPOSITORY_NAME_PATTERN } from '../store/repository-name.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { SharedState } from './tools.js';

const EMPTY_ARGS = { type: 'object', properties: {}, additionalProperties: false } as const;

export const REINDEX_ARGS = {
  type: 'object',
  properties: {
    path: {
      type: 'string',
      minLength: 1,
      maxLength: 500,
      description:
        'Only this file or directory, relative to the root (default: the whole root). Unchanged files are skipped either way.',
    },
    repo: {
      type: 'string',
      pattern: REPOSITORY_NAME_PATTERN,
      maxLength: 100,
      description:
        'Update this repository of the index, from the directory it was indexed from (default: the root this server serves).',
    },
  },
  additionalProperties: false,
} as const;

type ToolSources = Pick<SharedState, 'search' | 'references' | 'files'>;

/** readOnlyHint is left out: the registry (registry.ts) sets it from the tool's access. */
export function searchDefinition({ search }: ToolSources): Tool {
  return {
    name: search.name,
    title: 'Search the codebase',
    description: search.description,
    inputSchema: search.parameters as Tool['inputSchema'],
    outputSchema: search.outputSchema as Tool['outputSchema'],
    annotations: { title: 'Search the codebase', openWorldHint: false },
  };
}

export function referencesDefinition({ references }: ToolSources): Tool {
  return {
    name: references.name,
    title: 'Find references',
    description: references.description,
    inputSchema: references.parameters as unknown as Tool['inputSchema'],
    outputSchema: references.outputSchema as unknown as Tool['outputSchema'],
    annotations: { title: 'Find references', openWorldHint: false },
  };
}

export function filesDefinition({ files }: ToolSources): Tool {
  return {
    name: files.name,
    title: 'Find the files to change',
    description: files.description,
    inputSchema: files.parameters as unknown as Tool['inputSchema'],
    outputSchema: files.outputSchema as unknown as Tool['outputSchema'],
    annotations: { title: 'Find the files to change', openWorldHint: false },
  };
}

export function statusDefinition(): Tool {
  return {
    name: 'index_status',
    title: 'Index status',
    description:
      'What the code index covers and how fresh it is: root, embedder, when and how it was last updated, files and elements per language, and the files modified, deleted or added since (stale); and whether semantic search works now (search.degraded: the embedder is unavailable, so codebase_search answers with keyword matches only, search.reason says why). Call reindex when files are stale.',
    inputSchema: EMPTY_ARGS as unknown as Tool['inputSchema'],
    annotations: { title: 'Index status', openWorldHint: false },
  };
}

export function reindexDefinition(): Tool {
  return {
    name: 'reindex',
    title: 'Update the index',
    description:
      'Brings the code index up to date with the files on disk, incrementally: only added, changed and deleted files are analysed again. Call it after editing files, before searching for what you changed.',
    inputSchema: REINDEX_ARGS as unknown as Tool['inputSchema'],
    annotations: {
      title: 'Update the index',
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  };
}
