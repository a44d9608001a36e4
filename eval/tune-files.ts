/**
 * Chooses the weights of `oc-vector-search --files` (search/localise/file-ranking.ts)
 * from the features `npm run eval:localise -- --features f.jsonl` wrote: each
 * instance's files (the first 100 under the weights of that run) with their
 * scaled features, and its gold files. Coordinate ascent on the development
 * half's mean of Acc@1, Acc@5 and MRR; the held-out half is scored with the
 * chosen weights, never tuned on.
 *
 *   npm run eval:tune-files -- f.jsonl [more.jsonl …]
 */
import { readFileSync } from 'node:fs';
import { FEATURES, type FeatureName } from '../src/search/localise/file-evidence.js';
import { DEFAULT_FILE_WEIGHTS, fileScore, type FileWeights } from '../src/search/localise/file-ranking.js';
import { scoreInstance, summariseScores } from './lib/localise-metrics.js';
import { printTable } from './lib/stats.js';

interface Line {
  instance_id: string;
  split: 'dev' | 'held-out';
  gold: string[];
  files: { path: string; features: Partial<Record<FeatureName, number>>; roles: number; code: boolean }[];
}

const paths = process.argv.slice(2).filter((arg) => arg !== '--');
if (paths.length === 0) {
  process.stderr.write('eval:tune-files: give the --features files of eval:localise\n');
  process.exit(2);
}
const lines: Line[] = paths.flatMap((path) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line),
);

/** Acc@1, Acc@5 (every gold file in the first k) and MRR of `weights` over `set`. */
function score(set: readonly Line[], weights: FileWeights): { acc1: number; acc5: number; mrr: number } {
  const scores = summariseScores(
    set.map((line) => {
      const ranked = line.files
        .map((file) => ({ path: file.path, score: fileScore(file, weights).score }))
        .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
      return scoreInstance(
        ranked.map((file) => file.path),
        line.gold,
      );
    }),
  );
  return { acc1: scores.acc[1], acc5: scores.acc[5], mrr: scores.mrr };
}

const objective = (set: readonly Line[], weights: FileWeights) => {
  const s = score(set, weights);
  return (s.acc1 + s.acc5 + s.mrr) / 3;
};

const dev = lines.filter((line) => line.split === 'dev');
const heldOut = lines.filter((line) => line.split === 'held-out');
const KNOBS = [...FEATURES, 'rolePower', 'notCode'] as const;
const STEPS = [0, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3];
let best: FileWeights = { ...DEFAULT_FILE_WEIGHTS };
let bestValue = objective(dev, best);
for (let round = 0; round < 4; round++) {
  let moved = false;
  for (const knob of KNOBS)
    for (const value of STEPS) {
      const trial = { ...best, [knob]: value };
      const trialValue = objective(dev, trial);
      if (trialValue > bestValue + 1e-9) {
        best = trial;
        bestValue = trialValue;
        moved = true;
      }
    }
  if (!moved) break;
}

const pct = (value: number) => (100 * value).toFixed(1);
const rows = [
  ['defaults', DEFAULT_FILE_WEIGHTS],
  ['chosen on dev', best],
] as const;
printTable(
  `Weights of --files: ${dev.length} development and ${heldOut.length} held-out instances (Acc in %)`,
  ['weights', 'dev Acc@1', 'dev Acc@5', 'dev MRR', 'held-out Acc@1', 'held-out Acc@5', 'held-out MRR'],
  rows.map(([label, weights]) => {
    const d = score(dev, weights);
    const h = score(heldOut, weights);
    return [label, pct(d.acc1), pct(d.acc5), d.mrr.toFixed(3), pct(h.acc1), pct(h.acc5), h.mrr.toFixed(3)];
  }),
);
process.stdout.write(`\nchosen: ${JSON.stringify(best)}\n`);
