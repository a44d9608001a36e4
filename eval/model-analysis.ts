/**
 * A real analysis model's answers over a directory, counted: each file is indexed with the
 * model (the indexer's own path: parts, ajv, one retry, reconciliation with the syntax tree),
 * and every answer is then compared with the tree. Prints what the model got right and wrong:
 * files schema-valid on the first try, fallbacks by reason, invented elements (a name the file
 * does not define), wrong lines (a name it defines, cited too far from it), empty
 * descriptions, how many of the tree's elements gained a description, and the speed.
 *
 *   npm run eval:model-analysis -- <dir> --model <name> [--ollama-host <url>] [--json <file>]
 *
 * With `npm run models -- --serve` running, its line gives the host and the model.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Indexer } from '../src/index.js';
import type { Enricher } from '../src/analysis/analyzer.js';
import type { CodeFile } from '../src/analysis/types.js';
import { analysisCacheKey, MemoryAnalysisCache } from '../src/analysis/llm/cache.js';
import { OllamaEnricher } from '../src/analysis/llm/ollama-enricher.js';
import { PROMPT_VERSION } from '../src/analysis/llm/resources.js';
import { ollamaOptions } from '../src/cli/environment.js';
import { ModelTally } from './lib/model-tally.js';
import { classifyAnswers, type AnswerCounts } from './lib/answer-checks.js';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    model: { type: 'string' },
    'ollama-host': { type: 'string' },
    json: { type: 'string' },
  },
});
const fail = (message: string): never => {
  process.stderr.write(`model-analysis: ${message}\n`);
  process.exit(2);
};
const dir = resolve(positionals[0] ?? fail('a directory to analyse is required'));
const model = values.model ?? fail('--model <name> is required');

const tally = new ModelTally();
const cache = new MemoryAnalysisCache();
const ollama = new OllamaEnricher({
  ...ollamaOptions(values['ollama-host']),
  model,
  cache,
  onEvent: (event) => tally.add(event),
});
/** Each file as the syntax tree saw it, and its text: what the answers are compared with. */
const seen: { file: CodeFile; text: string }[] = [];
const enricher: Enricher = {
  model,
  get calls() {
    return ollama.calls;
  },
  plannedCalls: (file, text) => ollama.plannedCalls(file, text),
  enrich: (file, text) => {
    seen.push({ file, text });
    return ollama.enrich(file, text);
  },
};

const indexDir = mkdtempSync(join(tmpdir(), 'ocvector-model-analysis-'));
const started = performance.now();
try {
  await new Indexer({ path: dir, root: dir, indexDir, enricher, embedder: 'builtin' }).run();
} finally {
  rmSync(indexDir, { recursive: true, force: true });
}
const seconds = (performance.now() - started) / 1000;

/** Each file with the answers the run kept for it (the cache holds only validated ones). */
const kept = seen.map(({ file, text }) => ({
  file,
  answers: cache.get(analysisCacheKey(model, PROMPT_VERSION, text)),
}));
const counts: AnswerCounts = classifyAnswers(kept);
const summary = tally.summary();
process.stdout.write(`${dir}: ${seen.length} files analysed in ${seconds.toFixed(0)} s\n${tally.report(model)}\n`);
process.stdout.write(
  [
    `  answers compared with the syntax tree (${counts.filesAnswered} files with a kept answer):`,
    `    elements answered ${counts.answered}: matched ${counts.matched}, wrong lines ${counts.wrongLines}, invented ${counts.invented}; empty descriptions ${counts.emptyDescriptions}`,
    `    the tree's undocumented elements in those files ${counts.undocumented}: ${counts.described} described by the model (${((100 * counts.described) / Math.max(1, counts.undocumented)).toFixed(1)}%)`,
  ].join('\n') + '\n',
);
/** Every kept description, by file, for reading what the model wrote. */
const answers = Object.fromEntries(
  kept.map(({ file, answers }) => [
    file.path,
    (answers ?? []).flatMap((answer) => answer.elements.map((e) => `${e.name} (${e['start-line']}): ${e.description}`)),
  ]),
);
if (values.json)
  writeFileSync(values.json, `${JSON.stringify({ dir, model, seconds, summary, counts, answers }, null, 2)}\n`);
