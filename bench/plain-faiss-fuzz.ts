/**
 * Damaged plain FAISS files by the hundred: mutants of real files of ten index
 * types (test/helpers/faiss-mutants.ts), each read with plainFaiss: true in
 * this process. The run itself is the check: a mutant that crashed FAISS
 * outside the checking child would end it. Prints the outcomes per index type.
 *
 *   node node_modules/vite-node/vite-node.mjs bench/plain-faiss-fuzz.ts -- [--mutants 30] [--from 1]
 *
 * 30 mutants per type (300 reads) take about 30 s on 2 cores.
 */
import { MUTANT_KINDS, inPool, makePlainFixture, mutate, readMutant } from '../test/helpers/faiss-mutants.js';
import { printTable } from '../eval/lib/stats.js';

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} needs a positive integer`);
  return value;
}

const perKind = flag('--mutants', 30);
const from = flag('--from', 1);
const started = performance.now();
const rows: string[][] = [];
const messages = new Map<string, number>();
let total = 0;
let loaded = 0;
for (const kind of MUTANT_KINDS) {
  const { plain } = await makePlainFixture(kind);
  const seeds = Array.from({ length: perKind }, (_, i) => from + i);
  const outcomes = await inPool(seeds, 2, (seed) => readMutant(mutate(plain, seed)));
  const byCode = new Map<string, number>();
  for (const outcome of outcomes) {
    const key = outcome.ok ? 'loaded, searched' : outcome.code;
    byCode.set(key, (byCode.get(key) ?? 0) + 1);
    if (!outcome.ok) {
      // The reason without the numbers, to see which checks fire.
      const reason = outcome.message.replace(/^index buffer (is damaged: )?/, '').replace(/\d+/g, 'N');
      messages.set(reason, (messages.get(reason) ?? 0) + 1);
    } else loaded++;
  }
  total += outcomes.length;
  rows.push([
    kind.name,
    String(plain.length),
    ...['loaded, searched', 'CORRUPT_INDEX', 'UNSUPPORTED'].map((key) => String(byCode.get(key) ?? 0)),
    [...byCode.keys()]
      .filter((key) => !['loaded, searched', 'CORRUPT_INDEX', 'UNSUPPORTED'].includes(key))
      .join(', ') || '-',
  ]);
}
printTable(
  'Plain FAISS mutants read with plainFaiss: true',
  ['index', 'bytes', 'loaded, searched', 'CORRUPT_INDEX', 'UNSUPPORTED', 'other codes'],
  rows,
);
console.log(
  `\n${total} mutants (seeds ${from}-${from + perKind - 1} of each type), ${loaded} loaded and searched, none crashed this process; ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
console.log('\nReasons given (numbers elided):');
for (const [reason, count] of [...messages].sort((a, b) => b[1] - a[1]))
  console.log(`${String(count).padStart(5)}  ${reason.slice(0, 150)}`);
