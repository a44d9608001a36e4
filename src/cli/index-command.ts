/**
 * oc-vector-index [paths...]: index files and directories (incrementally),
 * or report on an index (--status) or on what a run would do (--dry-run).
 * stdout carries the result (a summary, or JSON with --json); progress and
 * warnings go to stderr.
 */
import { existsSync, lstatSync, statSync, type Stats } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { Command, Option } from 'commander';
import { defaultIndexDir, findRoot, INDEX_DIR_NAME } from '../files/root.js';
import { describeFsError, describeSpecial } from '../files/scan.js';
import { Indexer, type IndexerOptions } from '../indexing/indexer.js';
import { storeStatus } from '../indexing/status.js';
import { watchIndex } from '../indexing/watch.js';
import { findIndex } from '../search/find-index.js';
import { StoreError } from '../store/errors.js';
import { openStore } from '../store/open.js';
import { badRepositoryName, isRepositoryName } from '../store/repository-name.js';
import type { DroppedIndex } from '../store/store.js';
import { EXIT, UsageError } from './exit.js';
import { analysisChoice, analysisKinds, analysisKindsHelp } from './analysis-choice.js';
import { IndexReporter, mergeSummaries, renderRunReport } from './index-report.js';
import { renderDryRun, renderStatus } from './plan-report.js';
import { colorEnabled, formatDuration, makeStyle, plural } from './terminal.js';
import { configure, parseInteger, parseSize, runCommand } from './program.js';
import {
  embedderChoice,
  embedderKinds,
  type EmbedderKind,
  embeddingModelNeededWith,
  OPENAI_BASE_URL_HELP,
} from './embedder-choice.js';
import { ollamaOptions, openAIOptions, readEnvironment } from './environment.js';
import { addStoreOptions, storeChoice } from './store-choice.js';

interface IndexCliOptions {
  db?: string;
  llm?: boolean | 'ollama' | 'openai';
  model?: string;
  embedder?: EmbedderKind;
  embeddingModel?: string;
  ollamaHost?: string;
  openaiBaseUrl?: string;
  since?: string;
  rebuild?: boolean;
  seed: boolean;
  dryRun?: boolean;
  status?: boolean;
  watch?: boolean;
  threads?: string;
  wait?: string;
  timeout?: string;
  maxFileSize?: string;
  drop?: boolean;
  repo?: string;
  json?: boolean;
  quiet?: boolean;
  progress: boolean;
  store?: string;
  schema?: string;
}

const PROGRAM = 'oc-vector-index';

export async function indexMain(argv: readonly string[]): Promise<number> {
  const program = configure(
    new Command(PROGRAM),
    'Index files and directories for semantic code search (incremental: only what changed is redone).',
  )
    .argument('[paths...]', 'files or directories to index (default: the current directory)')
    .option(
      '--db <dir>',
      'index directory (default: <root>/.ocvector, the root being the enclosing git work tree or index)',
    );
  addStoreOptions(program)
    .option('--no-llm', 'syntax-tree analysis only: no descriptions from an analysis model')
    .addOption(
      new Option(
        '--llm <kind>',
        `the analysis model's server: ${analysisKindsHelp()} (default: Ollama when it has the model)`,
      ).choices(analysisKinds()),
    )
    .option('--model <name>', 'analysis model (default: qwen2.5-coder on Ollama, or OCVECTOR_ANALYSIS_MODEL)')
    .addOption(
      new Option(
        '--embedder <kind>',
        "embedder for a new index (default: the index's own; for a new one Ollama when it has the model, else built-in)",
      ).choices(embedderKinds()),
    )
    .option(
      '--embedding-model <name>',
      `embedding model (default: nomic-embed-text on Ollama, or OCVECTOR_EMBEDDING_MODEL; needed with ${embeddingModelNeededWith()})`,
    )
    .option('--ollama-host <url>', 'Ollama server (default: OLLAMA_HOST, else http://127.0.0.1:11434)')
    .option('--openai-base-url <url>', OPENAI_BASE_URL_HELP)
    .option('--since <rev>', 'only files git reports changed since this revision (plus untracked files)')
    .option('--rebuild', 'forget everything indexed and start again (needed to change embedder)')
    .option(
      '--no-seed',
      "a first index of a linked git worktree starts from a copy of the main worktree's index, and reads again only what differs: start it empty instead",
    )
    .option('--dry-run', 'count files, elements and model calls, and estimate the time; write nothing')
    .option('--status', 'what is indexed, when, with which models, and which files are stale')
    .option('--watch', 'after indexing, keep the index up to date as files change (Ctrl-C stops)')
    .option('--threads <n>', 'analysis threads (default: the number of cores)')
    .option(
      '--wait <seconds>',
      'wait this long for another indexer of the same index (of the same repository, in a shared store) to finish (default: fail at once)',
    )
    .option(
      '--timeout <seconds>',
      'deadline of each request to a model server, analysis and embeddings, reading the answer included',
      '120',
    )
    .option('--max-file-size <size>', 'skip files larger than this: bytes, or with k, M or G (default 1M)')
    .option(
      '--repo <name>',
      "the repository's name in the index (default: the directory's name); with --drop, remove only it",
    )
    .option(
      '--drop',
      'delete the index (its database, vectors files and lock; nothing else is touched); with --repo, only that repository (the only way in a shared store)',
    )
    .option('--json', 'machine-readable output on stdout')
    .option('-q, --quiet', 'no progress and no warnings on stderr')
    .option('--no-progress', 'no progress bar');

  return runCommand<IndexCliOptions>(program, argv, (args, options) => runIndexCommand(args[0] as string[], options));
}

async function runIndexCommand(paths: string[], options: IndexCliOptions): Promise<number> {
  const style = makeStyle(!options.json && colorEnabled(process.stdout));
  const exclusive = [
    options.status && '--status',
    options.dryRun && '--dry-run',
    options.watch && '--watch',
    options.drop && '--drop',
  ].filter(Boolean);
  if (exclusive.length > 1) throw new UsageError(`${exclusive.join(' and ')} cannot be used together`);
  if (options.watch && options.json) throw new UsageError('--watch and --json cannot be used together');
  const threads = options.threads === undefined ? undefined : parseInteger(options.threads, '--threads', 1, 256);
  const env = readEnvironment();
  const waitSeconds = options.wait === undefined ? undefined : parseInteger(options.wait, '--wait', 0, 86_400);
  const timeoutSeconds = parseInteger(options.timeout ?? '120', '--timeout', 1, 86_400);
  const maxBytes = options.maxFileSize === undefined ? undefined : parseSize(options.maxFileSize, '--max-file-size');
  // One address and one deadline per server for everything that talks to it: analysis, embeddings, the model probe.
  const ollama = { ...ollamaOptions(options.ollamaHost, env), timeoutMs: timeoutSeconds * 1_000 };
  const openai = { ...openAIOptions(options.openaiBaseUrl, env), timeoutMs: timeoutSeconds * 1_000 };

  if (options.repo !== undefined && !isRepositoryName(options.repo))
    throw new UsageError(`--repo: ${badRepositoryName(options.repo)}`);
  const store = storeChoice(options, env);
  if (options.drop) {
    const target = await openStore(store, {
      indexDir: store ? undefined : existingIndexDir(paths, options.db, 'nothing to delete'),
    });
    const wait = waitSeconds !== undefined ? { waitMs: waitSeconds * 1_000 } : {};
    if (options.repo !== undefined) {
      const dropped = await target.dropRepository(options.repo, wait);
      const from = 'directory' in dropped ? dropped.directory : dropped.location;
      process.stdout.write(
        options.json
          ? `${JSON.stringify(dropped, null, 2)}\n`
          : `removed the repository ${dropped.repo} (${plural(dropped.files, 'file')}, ${plural(dropped.elements, 'element')}) from ${from}\n`,
      );
      return EXIT.OK;
    }
    if (!target.capabilities.drop)
      throw new UsageError(
        '--drop on a shared store removes one repository: name it with --repo (the store itself is a schema of your database: drop that there)',
      );
    const dropped = await target.drop(wait);
    process.stdout.write(options.json ? `${JSON.stringify(dropped, null, 2)}\n` : renderDropped(dropped));
    return EXIT.OK;
  }

  if (options.status) {
    const target = await openStore(store, {
      indexDir: store ? undefined : existingIndexDir(paths, options.db, 'run oc-vector-index first'),
    });
    const status = await storeStatus(target);
    process.stdout.write(options.json ? `${JSON.stringify(status, null, 2)}\n` : renderStatus(status, style));
    return EXIT.OK;
  }

  const targets = (paths.length > 0 ? paths : ['.']).map((path) => resolve(path));
  for (const target of targets) await checkTarget(target);
  const root = rootOf(targets);

  const controller = new AbortController();
  const onSignal = () => controller.abort(new DOMException('interrupted', 'AbortError'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const embedder = embedderChoice(options, env);
    const llm = await analysisChoice(options, { ollama, openai }, env, (note) => {
      if (!options.quiet && !options.json) process.stderr.write(`note: ${note}\n`);
    });
    const common: Omit<IndexerOptions, 'path'> = {
      root,
      indexDir: options.db ? resolve(options.db) : defaultIndexDir(root),
      ...(store ? { store } : {}),
      ...(options.repo !== undefined ? { repo: options.repo } : {}),
      ...defined('embedder', embedder),
      ...defined('llm', llm),
      embedderOptions: { ollama, openai },
      ...(threads ? { threads } : {}),
      ...(options.since ? { since: options.since } : {}),
      ...(options.rebuild ? { rebuild: true } : {}),
      ...(options.seed ? {} : { seed: false }),
      ...(waitSeconds !== undefined ? { lockWaitMs: waitSeconds * 1_000 } : {}),
      ...(maxBytes !== undefined ? { limits: { maxBytes } } : {}),
      signal: controller.signal,
    };
    // One run per directory (each scoped to it), one for the files given, all into the same index.
    const directories = targets.filter((target) => statSync(target).isDirectory());
    const files = targets.filter((target) => !directories.includes(target));
    const runs: { path: string; paths?: string[] }[] = [
      ...directories.map((path) => ({ path })),
      ...(files.length > 0 ? [{ path: root, paths: files }] : []),
    ];

    if (options.dryRun) {
      const reports = [];
      for (const { path, paths } of runs)
        reports.push(await new Indexer({ ...common, path }).dryRun(paths ? { paths } : {}));
      for (const report of reports)
        process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderDryRun(report, style));
      return EXIT.OK;
    }

    const reporter = new IndexReporter({
      style: makeStyle(colorEnabled(process.stderr)),
      progress: options.progress && !options.quiet && !options.json,
      quiet: Boolean(options.quiet),
      // The embedded index keeps the model's answers between runs; a shared store does not yet.
      keepsModelAnswers: !store,
    });
    const summaries = [];
    try {
      for (const { path, paths } of runs)
        summaries.push(await new Indexer({ ...common, path, onEvent: reporter.onEvent }).run(paths ? { paths } : {}));
    } finally {
      reporter.finish();
    }
    const report = reporter.report(mergeSummaries(summaries));
    process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderRunReport(report, style));
    if (options.watch) await watch({ ...common, path: targets[0]! }, controller.signal, style);
    return EXIT.OK;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** Keeps indexing as files change until the signal (Ctrl-C); one line per run on stderr. */
async function watch(options: IndexerOptions, signal: AbortSignal, style: ReturnType<typeof makeStyle>): Promise<void> {
  const indexer = new Indexer(options);
  const watcher = watchIndex(indexer, {
    initialRun: false,
    onRun: (summary) => {
      const f = summary.files;
      process.stderr.write(
        `${style.dim(new Date().toLocaleTimeString())} ${f.added + f.changed + f.renamed} indexed, ${f.deleted} removed, ${summary.elements.added} new elements (${formatDuration(summary.durationMs)})\n`,
      );
    },
    onError: (error) => process.stderr.write(`${style.warn('warning:')} ${(error as Error).message}\n`),
  });
  await watcher.ready;
  process.stderr.write(`watching ${indexer.root} (Ctrl-C stops)\n`);
  await new Promise<void>((resolveWait) => signal.addEventListener('abort', () => resolveWait(), { once: true }));
  await watcher.close();
}

/**
 * The root for the paths given: the one each path finds (an enclosing index
 * or git work tree, else the directory itself) when they agree, else the
 * one found from their common directory, so that several paths share one
 * index. A path inside another work tree or index is refused.
 */
function rootOf(targets: readonly string[]): string {
  const roots = new Set(targets.map((target) => findRoot(target)));
  if (roots.size === 1) return [...roots][0]!;
  const root = findRoot(commonDirectory(targets));
  const separate = [...roots].filter(
    (found) => found !== root && (existsSync(join(found, '.git')) || existsSync(join(found, INDEX_DIR_NAME))),
  );
  if (separate.length > 0)
    throw new UsageError(`the paths belong to different roots (${[...roots].join(', ')}): index each root separately`);
  return root;
}

function commonDirectory(targets: readonly string[]): string {
  const directories = targets.map((target) => (statSync(target).isDirectory() ? target : dirname(target)));
  let common = directories[0]!;
  const within = (directory: string) =>
    directory === common || directory.startsWith(common.endsWith(sep) ? common : common + sep);
  while (!directories.every(within)) common = dirname(common);
  return common;
}

/** `{ key: value }`, or nothing when the value is undefined (exact optional properties). */
function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/**
 * A path given on the command line is a directory or a regular file; a
 * symbolic link, a FIFO or a device is refused with what it is (links are not
 * followed), and a path that cannot be looked at with its real reason (ELOOP,
 * EACCES are not "no such file").
 */
async function checkTarget(target: string): Promise<void> {
  let info: Stats;
  try {
    info = lstatSync(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT' ? `${target}: no such file or directory` : `${target}: ${describeFsError(error)}`,
    );
  }
  if (info.isFile() || info.isDirectory()) return;
  const { detail } = await describeSpecial(target, info.isSymbolicLink());
  throw new UsageError(`${target} is ${detail}; give a directory or a regular file`);
}

function renderDropped(dropped: DroppedIndex): string {
  const files = plural(dropped.removed.length, 'file');
  if (dropped.directoryRemoved) return `deleted the index at ${dropped.directory} (${files})\n`;
  return `deleted the index's ${files} in ${dropped.directory}; left ${dropped.kept.join(', ')} there, and the directory with them\n`;
}

/** The index `--db` names, or the nearest one at or above the first path; StoreError NOT_FOUND, saying what to do, when there is none. */
function existingIndexDir(paths: readonly string[], db: string | undefined, whatToDo: string): string {
  const found = db ? { indexDir: resolve(db) } : findIndex(paths[0] ?? '.');
  if (!found || !existsSync(found.indexDir))
    throw new StoreError(`no index found at or above ${resolve(paths[0] ?? '.')}: ${whatToDo}`, 'NOT_FOUND');
  return found.indexDir;
}
