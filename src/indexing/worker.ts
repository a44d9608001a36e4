/** A worker thread of AnalysisPool: reads, screens and parses files (no model calls), and runs the built-in embedder. */
import { parentPort, workerData } from 'node:worker_threads';
import { Analyzer } from '../analysis/analyzer.js';
import { BuiltinEmbedder } from '../vector/builtin-embedder.js';
import type { AnalysisEvent } from '../analysis/events.js';
import type { PoolEmbedRequest, PoolRequest, PoolResponse, PoolShutdown } from './pool.js';

const port = parentPort!;
let events: AnalysisEvent[] = [];
const analyzer = new Analyzer({
  limits: (workerData as { limits?: object }).limits ?? {},
  onEvent: (event) => events.push(event),
});

/** One per dimension asked for, kept: its memo of word features serves every later batch. */
const embedders = new Map<number, BuiltinEmbedder>();

function embed({ id, embed: { dimension }, texts }: PoolEmbedRequest): void {
  try {
    let embedder = embedders.get(dimension);
    if (!embedder) embedders.set(dimension, (embedder = new BuiltinEmbedder({ dimension })));
    const vectors = embedder.embedDocumentsSync(texts);
    port.postMessage({ id, vectors } satisfies PoolResponse, [vectors.buffer as ArrayBuffer]);
  } catch (error) {
    port.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies PoolResponse);
  }
}

port.on('message', (request: PoolRequest | PoolEmbedRequest | PoolShutdown) => {
  // Closing the port empties the event loop, so the thread ends between files, never inside a parse.
  if (request.shutdown) return port.close();
  if (request.embed) return embed(request);
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
