/**
 * A real repository indexed end to end against a real Ollama serving real weights
 * (test/helpers/real-ollama.ts): the analysis model (Qwen2.5-Coder-0.5B-Instruct) describing
 * each file under the result schema, the embedding model (all-MiniLM-L6-v2) embedding each
 * element, a search answering from both, an unchanged re-run asking neither, and what a real
 * server does wrong: a model it lacks, a server that stops mid-run, a file larger than the
 * context asked for.
 *
 * The repository is a few of this project's own files, small ones: the model takes tens of
 * seconds a file on 2 cores. Where `npm run models` has not prepared the models, each test here is
 * reported as skipped, with the helper's note saying so.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect } from 'vitest';
import { type IndexEvent, Indexer, Searcher } from '../../src/index.js';
import type { AnalysisEvent } from '../../src/analysis/events.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';
import { realModelTests, startRealOllama } from '../helpers/real-ollama.js';

const started = await startRealOllama();
const it = realModelTests(started);

/** Files of this repository, as they are: a real repository in small. */
const OWN_FILES = ['src/models/circuit-breaker.ts', 'src/models/call-slots.ts', 'src/analysis/llm/cache.ts'];
const own = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The analysis events of a run, gathered. */
function analysisEvents(): { events: AnalysisEvent[]; onEvent: (event: IndexEvent) => void } {
  const events: AnalysisEvent[] = [];
  return { events, onEvent: (event) => event.type === 'analysis' && events.push(event.event) };
}

const MINUTES = 60_000;
/**
 * A model call's deadline here: the tests are about what a real model answers, not how fast, and
 * on CI's 2 cores a call shares them with the rest of the suite.
 */
const CALL_TIMEOUT_MS = 10 * MINUTES;

const repos: TempRepo[] = [];
afterAll(async () => {
  await started.ollama?.stop();
  for (const repo of repos) repo.cleanup();
});
const repoOf = (paths: string[]) => {
  const repo = tempRepo(Object.fromEntries(paths.map((path) => [path, own(path)])));
  repos.push(repo);
  return repo;
};

const models = started.ollama ? `${started.ollama.llm}, ${started.ollama.embedder}` : 'not prepared here';
describe(`a real repository against a real Ollama (${models})`, () => {
  it(
    'indexes with the analysis model and the embedding model: answers schema-valid, search answering; an unchanged re-run asks neither',
    async ({ host, llm, embedder }) => {
      const repo = repoOf(OWN_FILES);
      const { events, onEvent } = analysisEvents();
      const indexer = new Indexer({
        path: repo.root,
        llm: { host, model: llm, timeoutMs: CALL_TIMEOUT_MS },
        embedder: 'ollama',
        embedderOptions: { ollama: { host, model: embedder } },
        onEvent,
      });
      const summary = await indexer.run();
      expect(summary.files.added).toBe(OWN_FILES.length);
      // Grammar-constrained output (`format`: the result schema): every answer passes ajv.
      const answers = events.filter((e) => e.type === 'llm-answer');
      expect(answers.length).toBeGreaterThanOrEqual(OWN_FILES.length);
      expect(answers.map((e) => e.outcome)).toEqual(answers.map(() => 'valid'));
      expect(answers.every((e) => (e.outputTokens ?? 0) > 0)).toBe(true);
      const enriched = events.filter((e) => e.type === 'llm-enriched');
      expect(enriched.length).toBeGreaterThanOrEqual(2);
      expect(summary.calls.model).toBe(answers.length);
      expect(summary.embedder).toBe(`ollama:${embedder}`);

      const searcher = await Searcher.open({ indexDir: indexer.indexDir, embedderOptions: { ollama: { host } } });
      try {
        for (const mode of ['hybrid', 'vector'] as const) {
          const response = await searcher.search('stop calling a server after it failed several times in a row', {
            mode,
            k: 5,
          });
          expect(response.fallback).toBeUndefined();
          expect(response.results[0]?.path).toBe('src/models/circuit-breaker.ts');
        }
      } finally {
        searcher.close();
      }

      const again = await indexer.run();
      expect(again.calls).toEqual({ embedding: 0, model: 0 });
    },
    15 * MINUTES,
  );

  it(
    "the same server's OpenAI-compatible API (/v1): --llm openai and --embedder openai, answers schema-valid",
    async ({ host, llm, embedder }) => {
      const repo = repoOf(['src/models/call-slots.ts']);
      const { events, onEvent } = analysisEvents();
      const baseUrl = `${host}/v1`;
      const indexer = new Indexer({
        path: repo.root,
        llm: { kind: 'openai', baseUrl, model: llm, timeoutMs: CALL_TIMEOUT_MS },
        embedder: 'openai',
        embedderOptions: { openai: { baseUrl, model: embedder } },
        onEvent,
      });
      const summary = await indexer.run();
      expect(summary.embedder).toBe(`openai:${embedder}`);
      const answers = events.filter((e) => e.type === 'llm-answer');
      expect(answers.length).toBeGreaterThanOrEqual(1);
      expect(answers.at(-1)?.outcome).toBe('valid');
      expect(events).toContainEqual(expect.objectContaining({ type: 'llm-enriched' }));
      const searcher = await Searcher.open({ indexDir: indexer.indexDir, embedderOptions: { openai: { baseUrl } } });
      try {
        const response = await searcher.search('let only a few calls run at the same time', { mode: 'vector', k: 3 });
        expect(response.results[0]?.path).toBe('src/models/call-slots.ts');
      } finally {
        searcher.close();
      }
    },
    10 * MINUTES,
  );

  it(
    'a model the server lacks: the embedder fails naming `ollama pull`; the analysis says so once and the syntax tree stands',
    async ({ host }) => {
      const repo = repoOf(OWN_FILES.slice(0, 2));
      const missingEmbedder = new Indexer({
        path: repo.root,
        llm: false,
        embedder: 'ollama',
        embedderOptions: { ollama: { host, model: 'all-minilm:not-pulled' } },
      });
      await expect(missingEmbedder.run()).rejects.toThrow(/`ollama pull all-minilm:not-pulled`/);

      const { events, onEvent } = analysisEvents();
      const summary = await new Indexer({
        path: repo.root,
        llm: { host, model: 'qwen2.5-coder:not-pulled' },
        embedder: 'builtin',
        onEvent,
      }).run();
      expect(summary.files.added).toBe(2);
      expect(summary.calls.model).toBe(1);
      const opened = events.filter((e) => e.type === 'llm-circuit-open');
      expect(opened).toEqual([
        expect.objectContaining({ detail: expect.stringContaining('`ollama pull qwen2.5-coder:not-pulled`') }),
      ]);
    },
    5 * MINUTES,
  );

  it(
    'the server stops mid-run: the files after it keep their syntax-tree analysis and the run finishes',
    async ({ llm }) => {
      const second = await startRealOllama();
      if (!second.ollama) throw new Error('a second real Ollama did not start');
      const stopping = second.ollama;
      const repo = repoOf(OWN_FILES);
      const events: AnalysisEvent[] = [];
      const indexer = new Indexer({
        path: repo.root,
        llm: { host: stopping.host, model: llm, timeoutMs: CALL_TIMEOUT_MS },
        embedder: 'builtin',
        threads: 1,
        onEvent: (event) => {
          if (event.type !== 'analysis') return;
          events.push(event.event);
          if (event.event.type === 'llm-answer') void stopping.stop();
        },
      });
      try {
        const summary = await indexer.run();
        expect(summary.files.added).toBe(OWN_FILES.length);
        const fellBack = events.filter((e) => e.type === 'llm-fallback');
        expect(fellBack.length).toBeGreaterThanOrEqual(1);
        expect(fellBack.every((e) => ['unreachable', 'circuit-open', 'server-error'].includes(e.reason))).toBe(true);
        const searcher = await Searcher.open({ indexDir: indexer.indexDir });
        try {
          const names = (await searcher.search('CallSlots', { k: 3 })).results.map((r) => r.name);
          expect(names).toContain('CallSlots');
        } finally {
          searcher.close();
        }
      } finally {
        await stopping.stop();
      }
    },
    10 * MINUTES,
  );

  it(
    'a file larger than the context asked for goes in parts, each answered under the schema',
    async ({ host, llm }) => {
      // Five undocumented elements over 82 lines: two parts at this context, each asked about some of them.
      const path = 'src/analysis/llm/reconcile.ts';
      const repo = repoOf([path]);
      const { events, onEvent } = analysisEvents();
      await new Indexer({
        path: repo.root,
        llm: { host, model: llm, contextTokens: 1_800, timeoutMs: CALL_TIMEOUT_MS },
        embedder: 'builtin',
        onEvent,
      }).run();
      const answers = events.filter((e) => e.type === 'llm-answer');
      expect(new Set(answers.map((e) => e.part)).size).toBeGreaterThanOrEqual(2);
      expect(answers.filter((e) => e.outcome !== 'valid')).toEqual([]);
      expect(events).toContainEqual(expect.objectContaining({ type: 'llm-enriched', path }));
    },
    10 * MINUTES,
  );
});
