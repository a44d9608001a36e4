/**
 * The prebuilt addon (prebuilds/linux-x64: FAISS, OpenBLAS and OpenMP
 * shipped beside it) against the addon built here from source against the
 * system's libraries: batched exact (Flat) search, each side in a child
 * process of its own, in alternating rounds on the same seeded data.
 *
 *   npm run bench:native -- --prebuilt [--quick]
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeMachine } from '../../eval/lib/machine.js';
import { writeFigures } from './out.js';
import { median, ms, printTable } from '../../eval/lib/stats.js';

interface Side {
  faiss: string;
  blas: string;
  coreType: string;
  times: number[];
}

export function comparePrebuilt(quick: boolean): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const addons = {
    system: join(root, 'build/Release/ocvector.node'),
    prebuilt: join(root, `prebuilds/${process.platform}-${process.arch}/ocvector.node`),
  };
  for (const [side, path] of Object.entries(addons))
    if (!existsSync(path))
      throw new Error(
        `no ${side} addon at ${path}: run ${side === 'system' ? 'npm run build:native' : 'npm run build:prebuilt'}`,
      );
  const [n, d, nq, repeats, rounds] = quick ? [20_000, 768, 200, 3, 2] : [200_000, 768, 1_000, 3, 3];
  const child = join(root, 'bench/lib/flat-search-child.mjs');
  const run = (path: string) =>
    JSON.parse(
      execFileSync(process.execPath, [child, path, ...[n, d, nq, repeats].map(String)], { encoding: 'utf8' }),
    ) as Side;
  const times: Record<keyof typeof addons, number[]> = { system: [], prebuilt: [] };
  const last: Partial<Record<keyof typeof addons, Side>> = {};
  for (let round = 0; round < rounds; round++)
    for (const side of round % 2 === 0 ? (['system', 'prebuilt'] as const) : (['prebuilt', 'system'] as const)) {
      process.stderr.write(`bench: round ${round + 1}/${rounds}, ${side}\n`);
      last[side] = run(addons[side]);
      times[side].push(...last[side].times);
    }
  const system = median(times.system);
  const prebuilt = median(times.prebuilt);
  printTable(
    `Prebuilt against system addon: Flat, ${n.toLocaleString('en')} x ${d}, ${nq.toLocaleString('en')} queries batched, k = 10 (${describeMachine()})`,
    ['addon', 'FAISS', 'BLAS', 'core', 'batch median', 'ratio'],
    (['system', 'prebuilt'] as const).map((side) => [
      side,
      last[side]!.faiss,
      last[side]!.blas.replace(root, ''),
      last[side]!.coreType,
      ms(median(times[side])),
      side === 'system' ? '1.00x' : `${(prebuilt / system).toFixed(2)}x`,
    ]),
  );
  writeFigures(
    'native-prebuilt',
    { n, d, nq, system: times.system, prebuilt: times.prebuilt, ratio: prebuilt / system },
    quick,
  );
}
