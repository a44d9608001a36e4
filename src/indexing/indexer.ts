/**
 * The Indexer: brings an index up to date with the files on disk, at a cost
 * that follows the change. Files whose size and mtime match the database
 * are not read; files read and found equal (same hash) are not analysed;
 * elements whose document is unchanged are not embedded and keep their
 * vector. In the embedded store each batch of files is one SQLite
 * transaction, except a rebuild or a repository new to an index that holds
 * others, which commits once at the end (the shared store writes as
 * store/postgres/ says). The FAISS file is
 * derived from the database: written at a checkpoint, and brought level by
 * replaying later changes whenever it is opened (see store/embedded/vector-file.ts),
 * so a crash at any moment leaves an index that opens consistent, and a
 * run that changes one file never loads the vectors of the rest.
 *
 * This module is the facade: it finds the root and resolves each run's
 * options. The work is beside it: the plan of a run (plan.ts), what a run
 * sets up from the options (indexer-setup.ts), the real run (update-index.ts,
 * run-files.ts) and its run object (index-run.ts), one record per file
 * (file-record.ts) filled by the stages read, analyse and embed
 * (file-stages.ts), and the dry run (dry-run.ts), which takes the same read
 * stage.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { DEFAULT_CONTENT_LIMITS } from '../analysis/content.js';
import { PathOutsideRootError } from '../files/errors.js';
import { defaultIndexDir, findRoot } from '../files/root.js';
import { isInside } from '../files/scan.js';
import { checkStoreChoice } from '../store/open.js';
import { dryRun, type DryRunReport } from './dry-run.js';
import type { IndexSummary } from './events.js';
import type { IndexerOptions, RunOptions } from './options.js';
import { IndexerSetup } from './indexer-setup.js';
import { updateIndex } from './update-index.js';

export { INDEXER_DEFAULTS, type IndexerOptions, type RunOptions } from './options.js';

export class Indexer {
  readonly root: string;
  readonly indexDir: string;
  readonly #options: IndexerOptions;
  readonly #setup: IndexerSetup;

  constructor(options: IndexerOptions) {
    this.#options = options;
    this.root = options.root ? resolve(options.root) : findRoot(options.path);
    if (!isInside(this.root, options.path))
      throw new PathOutsideRootError(`${resolve(options.path)} is outside the root ${this.root}`);
    this.indexDir = resolve(options.indexDir ?? defaultIndexDir(this.root));
    // A store no kind of store claims is refused now, not at the first run.
    checkStoreChoice(options.store);
    this.#setup = new IndexerSetup({
      root: this.root,
      indexDir: this.indexDir,
      options,
      limits: { ...DEFAULT_CONTENT_LIMITS, ...options.limits },
      emit: options.onEvent ?? (() => {}),
    });
  }

  /**
   * Indexes what the options name: the whole root, or only the given path
   * when it is a file, or git's changes with `since`.
   */
  async run(runOptions: RunOptions = {}): Promise<IndexSummary> {
    return updateIndex(this.#setup, await this.#resolveRun(runOptions));
  }

  /**
   * What `run` would do, without doing it: files, elements and model calls
   * per language and directory, and an estimate of the time. Reads and
   * parses the changed files; calls no model and writes nothing. A store that cannot be
   * previewed refuses (StoreError BAD_OPTION, saying what to do instead).
   */
  async dryRun(runOptions: RunOptions = {}): Promise<DryRunReport> {
    return dryRun(this.#setup, await this.#resolveRun(runOptions));
  }

  /** The run's options merged with the indexer's; a file given as `path` is indexed alone. */
  async #resolveRun(runOptions: RunOptions): Promise<RunOptions> {
    const given = resolve(this.#options.path);
    const singleFile = given !== this.root && !runOptions.paths && (await isFile(given));
    const since = runOptions.since ?? this.#options.since;
    const rebuild = runOptions.rebuild ?? this.#options.rebuild;
    return {
      ...runOptions,
      ...(singleFile ? { paths: [given] } : {}),
      ...(since !== undefined ? { since } : {}),
      ...(rebuild !== undefined ? { rebuild } : {}),
    };
  }
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}
