/**
 * "Which file do I change?" (Searcher.searchFiles, search/localise/): an
 * issue answered with files, on a real index of a small project whose test,
 * documentation and translation files repeat the issue's words. The file a
 * traceback fails in, the one raising the quoted error, the module a dotted
 * name spells come first, each with its evidence; tests and docs below the
 * code; the whole text read, however long.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Indexer, Searcher } from '../../../src/index.js';
import { SearchError } from '../../../src/search/errors.js';
import { MAX_ISSUE_LENGTH } from '../../../src/search/localise/file-search.js';
import { tempRepo, type TempRepo } from '../../helpers/repo.js';

const ENGINE = `"""The engine: runs jobs in order."""


class EngineNotStarted(RuntimeError):
    pass


def run_engine(jobs, started=False):
    """Runs each job; the engine must be started first."""
    if not started:
        raise EngineNotStarted("the engine was asked to run before it was started")
    return [job() for job in jobs]


def stop_engine(engine):
    """Stops the engine after its current job."""
    engine.stopping = True
`;
const SCHEDULER = `"""When jobs run."""
from pkg.core.engine import run_engine


def schedule(jobs, at):
    """Runs the jobs at a given time."""
    return run_engine(jobs, started=True)
`;
const CACHE = `"""A cache of job results, keyed by job name."""


class ResultCache:
    def get(self, name):
        return self.results.get(name)

    def put(self, name, value):
        self.results[name] = value
`;
/** A test and a page that spell the issue's words more often than the code does. */
const TEST = `from pkg.core.engine import run_engine, EngineNotStarted


def test_run_engine_before_started_raises():
    # run engine before started: the engine was asked to run before it was started
    try:
        run_engine([])
    except EngineNotStarted:
        pass


def test_run_engine_runs_jobs_in_order():
    assert run_engine([lambda: 1], started=True) == [1]
`;
const DOCS = `The engine
==========

Call run_engine to run jobs. The engine must be started before run_engine runs jobs;
run_engine raises EngineNotStarted when the engine was asked to run before it was started.
`;
const CATALOG = `msgid "the engine was asked to run before it was started"
msgstr "le moteur a été lancé avant d'être démarré"
`;

let repo: TempRepo;
let searcher: Searcher;

beforeAll(async () => {
  repo = tempRepo({
    'pkg/__init__.py': '',
    'pkg/core/__init__.py': '',
    'pkg/core/engine.py': ENGINE,
    'pkg/scheduler.py': SCHEDULER,
    'pkg/cache.py': CACHE,
    'tests/test_engine.py': TEST,
    'docs/engine.rst': DOCS,
    'locale/fr/messages.po': CATALOG,
  });
  const indexDir = join(repo.root, '.ocvector');
  await new Indexer({ path: repo.root, indexDir, embedder: 'builtin', llm: false, threads: 1 }).run();
  searcher = await Searcher.open({ indexDir });
}, 120_000);

afterAll(() => {
  searcher?.close();
  repo?.cleanup();
});

const paths = async (issue: string, k = 5) => (await searcher.searchFiles(issue, { k })).files.map((file) => file.path);

describe('an issue answered with files', () => {
  it('puts first the files a traceback passes through, after 5,000 characters of prose (a search takes 2,000)', async () => {
    const prose = 'Our nightly batch fails in the morning; the logs say little more than this. '.repeat(70);
    const issue = [
      'Batch fails overnight',
      prose,
      'Traceback (most recent call last):',
      '  File "/srv/app/venv/lib/python3.11/site-packages/pkg/scheduler.py", line 7, in schedule',
      '  File "/srv/app/venv/lib/python3.11/site-packages/pkg/core/engine.py", line 11, in run_engine',
    ].join('\n');
    expect(issue.length).toBeGreaterThan(5_000);
    // A search refuses it, and says where a whole issue goes.
    await expect(searcher.search(issue)).rejects.toThrow(/at most 2000 are allowed \(for a whole issue .*--files/);
    const response = await searcher.searchFiles(issue, { k: 3, explain: true });
    const [first, second] = response.files;
    expect(new Set([first!.path, second!.path])).toEqual(new Set(['pkg/core/engine.py', 'pkg/scheduler.py']));
    const engine = response.files.find((file) => file.path === 'pkg/core/engine.py')!;
    const scheduler = response.files.find((file) => file.path === 'pkg/scheduler.py')!;
    // The innermost frame (Python writes it last) weighs most.
    expect(engine.explain!.features.frame).toBeGreaterThan(scheduler.explain!.features.frame!);
    expect(engine.evidence.find((evidence) => evidence.kind === 'frame')!.said).toContain(
      'in the traceback (run_engine)',
    );
    expect(response.length).toBe(issue.length);
  });

  it('finds the file raising the error the issue quotes, above the test, the page and the catalog that repeat it', async () => {
    const ranked = await paths("Jobs fail with 'the engine was asked to run before it was started' after upgrading", 8);
    expect(ranked[0]).toBe('pkg/core/engine.py');
    for (const held of ['tests/test_engine.py', 'docs/engine.rst', 'locale/fr/messages.po'])
      if (ranked.includes(held)) expect(ranked.indexOf(held)).toBeGreaterThan(ranked.indexOf('pkg/core/engine.py'));
  });

  it('follows a dotted module name to its file', async () => {
    const response = await searcher.searchFiles('Importing pkg.core.engine.EngineNotStarted breaks pickling', { k: 3 });
    expect(response.files[0]!.path).toBe('pkg/core/engine.py');
    expect(response.files[0]!.evidence.map((evidence) => evidence.kind)).toEqual(
      expect.arrayContaining(['module', 'defines']),
    );
  });

  it('answers with the repository, an absolute path and the explanation when asked', async () => {
    const response = await searcher.searchFiles('ResultCache.put overwrites a cached value', { k: 2, explain: true });
    const [first] = response.files;
    expect(first!.path).toBe('pkg/cache.py');
    expect(first!.absolutePath).toBe(join(repo.root, 'pkg/cache.py'));
    expect(first!.explain!.features.defines).toBe(1);
  });

  it('keeps to the languages and paths asked for, every kind of evidence included', async () => {
    const issue = 'Engine fails\n  File "/srv/venv/site-packages/pkg/core/engine.py", line 11, in run_engine\n';
    const python = await searcher.searchFiles(issue, { k: 3, language: 'python' });
    expect(python.files[0]!.path).toBe('pkg/core/engine.py');
    expect(python.files[0]!.evidence.map((evidence) => evidence.kind)).toContain('frame');
    const docs = await searcher.searchFiles(issue, { k: 3, path: 'docs' });
    expect(docs.files.map((file) => file.path)).toEqual(['docs/engine.rst']);
  });

  it('refuses an empty text and one past the limit, naming it', async () => {
    await expect(searcher.searchFiles('  ')).rejects.toThrow(SearchError);
    await expect(searcher.searchFiles('x'.repeat(MAX_ISSUE_LENGTH + 1))).rejects.toThrow(
      `at most ${MAX_ISSUE_LENGTH} are allowed`,
    );
    await expect(searcher.searchFiles('engine', { k: 0 })).rejects.toThrow(/k must be an integer/);
  });
});
