/** Event-loop delay while some work runs, from Node's own histogram. */
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface LagFigures {
  workMs: number;
  worstMs: number;
  p99Ms: number;
  samples: number;
}

export async function measureEventLoopLag(work: () => Promise<unknown>): Promise<LagFigures> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const start = performance.now();
  await work();
  const workMs = performance.now() - start;
  histogram.disable();
  // The histogram records the whole delay of each 1 ms tick; lag is the excess.
  const lag = (ns: number) => Math.max(0, ns / 1e6 - 1);
  return { workMs, worstMs: lag(histogram.max), p99Ms: lag(histogram.percentile(99)), samples: histogram.count };
}
