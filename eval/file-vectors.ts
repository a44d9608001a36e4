/**
 * Whether file-level vectors help `--files` (issue 55, item 4): for each
 * instance of `eval:localise --features` dumps, the first `--top` files
 * under the chosen weights get one vector each, of a text that stands for
 * the whole file (`--text outline`: its path and the names and first doc
 * lines of what it defines; `--text head`: its path and first characters),
 * and the issue one vector of its first characters. The cosine, scaled from
 * the lowest to the highest among those files, is one more feature; its
 * weight is chosen on the development half and scored on the held-out half,
 * beside the weights without it. Vectors are cached by text under `--cache`,
 * so a second run (or another `--top`) asks the model only for new texts.
 *
 *   npm run eval:file-vectors -- --embedder ollama:all-minilm:l6-v2 --ollama-host <url> f.jsonl [more.jsonl]
 *
 * The git directories come from --mirrors joined with repos.json's git_dir, as for eval:localise.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeText } from '../src/analysis/analyzer.js';
import { chooseEmbedder } from '../src/vector/choose.js';
import type { Embedder } from '../src/vector/embedder.js';
import type { FeatureName } from '../src/search/localise/file-evidence.js';
import { DEFAULT_FILE_WEIGHTS, fileScore } from '../src/search/localise/file-ranking.js';
import { printTable } from './lib/stats.js';
import { ROOT } from './lib/corpora.js';
import { embedderFromFlags } from './lib/embedder-flag.js';
import { scoreInstance, summariseScores } from './lib/localise-metrics.js';
import { loadInstances, loadRepos } from './lib/localise-set.js';
import { readBlobs, treeAt } from './lib/localise-worktree.js';

interface FileLine {
  path: string;
  features: Partial<Record<FeatureName, number>>;
  roles: number;
  code: boolean;
}
interface Line {
  instance_id: string;
  split: 'dev' | 'held-out';
  gold: string[];
  files: FileLine[];
}

const fail = (message: string): never => {
  process.stderr.write(`eval:file-vectors: ${message}\n`);
  process.exit(2);
};
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    embedder: { type: 'string', default: 'builtin' },
    'ollama-host': { type: 'string' },
    'openai-base-url': { type: 'string' },
    top: { type: 'string', default: '20' },
    text: { type: 'string', default: 'outline' },
    'query-chars': { type: 'string', default: '1000' },
    data: { type: 'string', default: join(ROOT, '..', 'shared', 'localisation-dev') },
    mirrors: { type: 'string', default: '/work/.mirror' },
    cache: { type: 'string', default: join(ROOT, 'eval', '.cache', 'file-vectors') },
  },
});
const paths = positionals.filter((arg) => arg !== '--');
if (paths.length === 0) fail('give the --features files of eval:localise');
const top = Number(values.top);
if (!Number.isInteger(top) || top < 2) fail(`--top takes a whole number of at least 2, not ${values.top}`);
if (values.text !== 'outline' && values.text !== 'head') fail(`--text takes outline or head, not ${values.text}`);
const queryChars = Number(values['query-chars']);

const lines: Line[] = paths.flatMap((path) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line),
);
const instances = new Map(loadInstances(join(values.data!, 'instances.jsonl')).map((i) => [i.instance_id, i]));
const repos = loadRepos(join(values.data!, 'repos.json'));

const { choice, options } = embedderFromFlags(values, fail);
const embedder: Embedder = await chooseEmbedder(choice, undefined, options);
await embedder.init();

/** Vectors by sha1(embedder id, kind, text), kept across runs. */
mkdirSync(values.cache!, { recursive: true });
const cacheFile = join(values.cache!, `${embedder.id.replace(/[^\w.-]+/g, '_')}.json`);
const cache = new Map<string, number[]>(
  existsSync(cacheFile) ? Object.entries(JSON.parse(readFileSync(cacheFile, 'utf8')) as Record<string, number[]>) : [],
);
const keyOf = (kind: string, text: string) => createHash('sha1').update(`${kind}\0${text}`).digest('hex');
const saveCache = () => writeFileSync(cacheFile, JSON.stringify(Object.fromEntries(cache)));

async function embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
  const missing = [...new Set(texts.filter((text) => !cache.has(keyOf('doc', text))))];
  for (let at = 0; at < missing.length; at += 16) {
    const batch = missing.slice(at, at + 16);
    const rows = await embedder.embedDocuments(batch);
    batch.forEach((text, i) =>
      cache.set(keyOf('doc', text), [...rows.subarray(i * embedder.dimension, (i + 1) * embedder.dimension)]),
    );
  }
  return texts.map((text) => Float32Array.from(cache.get(keyOf('doc', text))!));
}

async function embedQuery(text: string): Promise<Float32Array> {
  const key = keyOf('query', text);
  if (!cache.has(key)) {
    cache.set(key, [...(await embedder.embedQuery(text))]);
  }
  return Float32Array.from(cache.get(key)!);
}

/** The text that stands for a whole file: its path as words, then what it defines (outline) or its start (head). */
function fileText(path: string, source: string): string {
  const pathWords = path.replace(/[/_.-]+/g, ' ');
  if (values.text === 'head') return `${pathWords}\n${source.slice(0, 1500)}`;
  const parts: string[] = [];
  for (const element of analyzeText(path, source).elements) {
    const doc = element.description.split('\n')[0]?.trim() ?? '';
    parts.push(doc ? `${element.name}: ${doc}` : element.name);
  }
  return `${pathWords}\n${parts.join('\n')}`.slice(0, 1500);
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);
const byScore = (files: readonly FileLine[], extra: (file: FileLine) => number) =>
  files
    .map((file) => ({ path: file.path, score: fileScore(file, DEFAULT_FILE_WEIGHTS).score + extra(file) }))
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));

/** The `vector` feature of each instance's first `top` files, scaled 0 (lowest cosine) to 1 (highest). */
const vectorFeature = new Map<string, Map<string, number>>();
let done = 0;
const started = Date.now();
for (const line of lines) {
  const instance = instances.get(line.instance_id) ?? fail(`${line.instance_id} is not in the set`);
  const gitDir = join(resolve(values.mirrors!), repos[instance.repo]!.git_dir);
  const first = byScore(line.files, () => 0).slice(0, top);
  const tree = treeAt(gitDir, instance.base_commit);
  const blobs = readBlobs(
    gitDir,
    first.flatMap((file) => tree.get(file.path)?.blob ?? []),
  );
  const texts = first.map((file) => {
    const blob = tree.get(file.path)?.blob;
    return fileText(file.path, blob ? (blobs.get(blob)?.toString('utf8') ?? '') : '');
  });
  const [vectors, query] = [
    await embedDocuments(texts),
    await embedQuery(instance.problem_statement.slice(0, queryChars)),
  ];
  const cosines = vectors.map((vector) => dot(vector, query));
  const low = Math.min(...cosines);
  const high = Math.max(...cosines);
  vectorFeature.set(
    line.instance_id,
    new Map(first.map((file, i) => [file.path, high > low ? (cosines[i]! - low) / (high - low) : 0])),
  );
  if (++done % 10 === 0) {
    // Kept every ten instances, not at each new text: the file is megabytes, and an interrupted run keeps most of its work.
    saveCache();
    process.stderr.write(`${done}/${lines.length} instances, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  }
}
saveCache();

type Score = { acc1: number; acc5: number; mrr: number };
function score(set: readonly Line[], weight: number, alone = false): Score {
  const scores = summariseScores(
    set.map((line) => {
      const vector = vectorFeature.get(line.instance_id)!;
      const ranked = alone
        ? // The vector alone reorders the first `top` files; the rest keep their order below them.
          byScore(line.files, (file) => (vector.has(file.path) ? 1000 + (vector.get(file.path) ?? 0) : 0))
        : byScore(
            line.files,
            (file) => weight * (vector.get(file.path) ?? 0) * file.roles ** DEFAULT_FILE_WEIGHTS.rolePower,
          );
      return scoreInstance(
        ranked.map((file) => file.path),
        line.gold,
      );
    }),
  );
  return { acc1: scores.acc[1], acc5: scores.acc[5], mrr: scores.mrr };
}

const objective = (s: Score) => (s.acc1 + s.acc5 + s.mrr) / 3;
const dev = lines.filter((line) => line.split === 'dev');
const heldOut = lines.filter((line) => line.split === 'held-out');
const STEPS = [0, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2];
const chosen = STEPS.reduce((best, weight) =>
  objective(score(dev, weight)) > objective(score(dev, best)) + 1e-9 ? weight : best,
);

const pct = (value: number) => (100 * value).toFixed(1);
const oneGold = (set: readonly Line[]) => set.filter((line) => line.gold.length === 1);
const python = (set: readonly Line[]) => set.filter((line) => instances.get(line.instance_id)!.language === 'Python');
const other = (set: readonly Line[]) => set.filter((line) => instances.get(line.instance_id)!.language !== 'Python');
const cells = (s: Score) => [pct(s.acc1), pct(s.acc5), s.mrr.toFixed(3)];
const rows: string[][] = [];
for (const [half, set] of [
  ['development', dev],
  ['held-out', heldOut],
] as const)
  for (const [part, subset] of [
    ['all', set],
    ['one gold file', oneGold(set)],
    ['Python, one gold file', python(oneGold(set))],
    ['other languages, one gold file', other(oneGold(set))],
  ] as const)
    rows.push([
      half,
      `${part} (${subset.length})`,
      ...cells(score(subset, 0)),
      ...cells(score(subset, chosen)),
      ...cells(score(subset, 0, true)),
    ]);
printTable(
  `File-level vectors (${embedder.id}, --text ${values.text}, first ${top} files, issue's first ${queryChars} characters; vector weight chosen on development: ${chosen})`,
  [
    'half',
    'instances',
    'without Acc@1',
    'Acc@5',
    'MRR',
    'with Acc@1',
    'Acc@5',
    'MRR',
    'vector alone Acc@1',
    'Acc@5',
    'MRR',
  ],
  rows,
);
process.stdout.write(
  `\n${done} instances, ${embedder.calls} embedding requests, ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
);
