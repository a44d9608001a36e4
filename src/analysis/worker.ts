/** A worker thread of AnalysisPool: reads, screens and parses files (no model calls). */
import { parentPort, workerData } from 'node:worker_threads';
import { Analyzer } from './analyzer.js';
import type { AnalysisEvent } from './events.js';
import type { PoolRequest, PoolResponse, PoolShutdown } from './pool.js';

const port = parentPort!;
let events: AnalysisEvent[] = [];
const analyzer = new Analyzer({
  limits: (workerData as { limits?: object }).limits ?? {},
  onEvent: (event) => events.push(event),
});

port.on('message', (request: PoolRequest | PoolShutdown) => {
  // Closing the port empties the event loop, so the thread ends between files, never inside a parse.
  if (request.shutdown) return port.close();
  (request.bytes ? analyzer.analyzeBytes(request.path, request.bytes) : analyzer.analyzeFile(request.path)).then(
    (result) => {
      const response: PoolResponse = { id: request.id, result, events };
      events = [];
      port.postMessage(response);
    },
    (error: unknown) => {
      events = [];
      port.postMessage({
        id: request.id,
        error: error instanceof Error ? error.message : String(error),
      } satisfies PoolResponse);
    },
  );
});
