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
  // With bytes, the text analysis read goes back too: the indexer builds its documents from it.
  (request.bytes
    ? analyzer.analyzeWithText(request.path, request.bytes)
    : analyzer.analyzeFile(request.path).then((result) => ({ result, text: undefined }))
  ).then(
    ({ result, text }) => {
      const response: PoolResponse =
        text === undefined ? { id: request.id, result, events } : { id: request.id, result, text, events };
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
