/** reindex: brings the index up to date with the files on disk, incrementally; the one tool that writes. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PathOutsideRootError } from '../../files/errors.js';
import type { IndexEvent, IndexSummary } from '../../indexing/events.js';
import { Indexer } from '../../indexing/indexer.js';
import { lazyValidator } from '../../lazy-validator.js';
import { openStore } from '../../store/open.js';
import { REPOSITORY_NAME_PATTERN } from '../../store/repository-name.js';
import { confineToRoots } from '../../tool/paths.js';
import { unknownRepository, type McpAccess } from '../access.js';
import type { McpTool, SharedState } from '../mcp-tool.js';
import { structured, toolError } from '../tool-answer.js';

const REINDEX_ARGS = {
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

const validateReindex = lazyValidator<{ path?: string; repo?: string }>(REINDEX_ARGS);

/** Progress notifications at most this often. */
const PROGRESS_INTERVAL_MS = 250;

export const reindex: McpTool = {
  name: 'reindex',
  title: 'Update the index',
  description:
    'Brings the code index up to date with the files on disk, incrementally: only added, changed and deleted files are analysed again. Call it after editing files, before searching for what you changed.',
  inputSchema: REINDEX_ARGS,
  hints: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'write',
  async handler(shared, { access, log }, args, extra, took) {
    if (!validateReindex(args))
      return toolError(
        `invalid arguments: ${validateReindex.errors?.map((e) => `${e.instancePath.slice(1) || 'arguments'} ${e.message}`).join('; ')}`,
      );
    const { indexDir, store } = shared;
    const where = await reindexTarget(shared, access, args.repo);
    if ('error' in where) {
      log(`reindex refused: ${where.error}`);
      return toolError(where.error);
    }
    const { root, repo } = where;
    let target = root;
    try {
      if (args.path !== undefined)
        target = join(root, confineToRoots([root], args.path, 'the repository being updated'));
    } catch (error) {
      if (error instanceof PathOutsideRootError) return toolError(`path refused: ${error.message}`);
      throw error;
    }
    if (!existsSync(target))
      return toolError(
        args.path === undefined
          ? `${root} is not on this server`
          : `${args.path}: no such file or directory in ${root}`,
      );
    const progress = progressReporter(extra._meta?.progressToken, (notification) =>
      extra.sendNotification(notification),
    );
    const run = shared.reindexing.then(() =>
      new Indexer({
        ...shared.indexer,
        root,
        path: target,
        indexDir,
        ...(store ? { store } : {}),
        ...(repo !== undefined ? { repo } : {}),
        signal: extra.signal,
        onEvent: progress,
      }).run(),
    );
    shared.reindexing = run.catch(() => {});
    try {
      const summary = await run;
      const f = summary.files;
      log(
        `reindex: ${f.added} added, ${f.changed} changed, ${f.deleted} deleted, ${f.unchanged} unchanged (${took()})`,
      );
      return structured(access.repos === '*' ? summary : ownFiguresOfSummary(summary));
    } catch (error) {
      log(`reindex failed: ${(error as Error).message}`);
      return toolError(`reindex failed: ${(error as Error).message}`);
    }
  },
};

/**
 * Where a reindex runs: a repository of the index by name (a token for
 * some repositories may name only those: another is answered as unknown),
 * from the directory it was last indexed from; without a name, the root
 * this server serves, which only a token for every repository may update.
 */
async function reindexTarget(
  shared: SharedState,
  access: McpAccess,
  repo: string | undefined,
): Promise<{ root: string; repo: string | undefined } | { error: string }> {
  if (repo === undefined) {
    if (access.repos !== '*')
      return {
        error: `name the repository to update (repo): the token "${access.name}" may update ${access.repos.join(', ')} only`,
      };
    return { root: shared.root, repo: undefined };
  }
  if (access.repos !== '*' && !access.repos.includes(repo)) return { error: unknownRepository(repo) };
  try {
    const store = await openStore(shared.store, { indexDir: shared.indexDir });
    const repository = (await store.repositories()).find((known) => known.name === repo);
    return repository ? { root: repository.root, repo } : { error: unknownRepository(repo) };
  } catch (error) {
    return { error: `reindex failed: ${(error as Error).message}` };
  }
}

/**
 * A reindex summary without the store-wide figures (its generation, element
 * and vector totals), for a token limited to some repositories: they move
 * when another repository is indexed (as index_status's, index-status.ts).
 */
function ownFiguresOfSummary(summary: IndexSummary): object {
  const { generation: _generation, elements, index, ...own } = summary;
  const { total: _total, ...changed } = elements;
  return { ...own, elements: changed, index: { description: index.description, written: index.written } };
}

type ProgressNotification = {
  method: 'notifications/progress';
  params: { progressToken: string | number; progress: number; total?: number; message?: string };
};

/** Indexer events as MCP progress notifications, when the client asked for them (a progress token). */
function progressReporter(
  token: string | number | undefined,
  send: (notification: ProgressNotification) => Promise<void>,
): (event: IndexEvent) => void {
  if (token === undefined) return () => {};
  let last = 0;
  return (event) => {
    if (event.type !== 'progress') return;
    const now = performance.now();
    if (now - last < PROGRESS_INTERVAL_MS && event.done !== event.total) return;
    last = now;
    send({
      method: 'notifications/progress',
      params: {
        progressToken: token,
        progress: event.done,
        total: event.total,
        message: `${event.done}/${event.total} files`,
      },
    }).catch(() => {});
  };
}
