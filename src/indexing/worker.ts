/**
 * A worker thread of AnalysisPool: reads, screens and parses files (no
 * model calls), and runs the in-process embedders whose backends can make
 * them here (the built-in one).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Analyzer } from '../analysis/analyzer.js';
import { embedderFromId } from '../vector/choose.js';
import type { Embedder } from '../vector/embedder.js';
import type { AnalysisEvent } from '../analysis/events.js';
import { readRegularFileSync } from '../files/read.js';
import { readForIndex } from './file-read.js';
import type { PoolEmbedRequest, PoolReadRequest, PoolRequest, PoolResponse, PoolShutdown } from './pool.js';

const port = parentPort!;
let events: AnalysisEvent[] = [];
const analyzer = new Analyzer({
  limits: (workerData as { limits?: object }).limits ?? {},
  onEvent: (event) => events.push(event),
});

/** One per embedder id asked for, kept: its memos (the built-in one's word features) serve every later batch. */
const embedders = new Map<string, Promise<Embedder>>();

function embedderFor(embedderId: string): Promise<Embedder> {
  let embedder = embedders.get(embedderId);
  if (!embedder) {
    const made = embedderFromId(embedderId);
    embedder = made
      ? made.init().then(() => made)
      : Promise.reject(new Error(`no embedder backend on this worker thread makes ${embedderId}`));
    embedders.set(embedderId, embedder);
  }
  return embedder;
}

async function embed({ id, embed: { embedderId }, texts }: PoolEmbedRequest): Promise<void> {
  try {
    const vectors = await (await embedderFor(embedderId)).embedDocuments(texts);
    port.postMessage({ id, vectors } satisfies PoolResponse, [vectors.buffer as ArrayBuffer]);
  } catch (error) {
    port.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies PoolResponse);
  }
}

/** Reads, hashes and (unless unchanged) analyses a file for the indexer (file-read.ts). */
async function readAndAnalyze({ id, path, read: { absolutePath, knownHash } }: PoolReadRequest): Promise<void> {
  const read = await readForIndex(
    () => readRegularFileSync(absolutePath),
    (bytes) => analyzer.analyzeWithText(path, bytes),
    knownHash,
  );
  const response: PoolResponse = { id, read, events };
  events = [];
  // Moved rather than copied where the buffer holds these bytes alone (a small file's may share Node's pool).
  const bytes = 'bytes' in read ? read.bytes : undefined;
  const owned = bytes && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  port.postMessage(response, owned ? [bytes.buffer as ArrayBuffer] : []);
}

port.on('message', (request: PoolRequest | PoolEmbedRequest | PoolReadRequest | PoolShutdown) => {
  // Closing the port empties the event loop, so the thread ends between files, never inside a parse.
  if (request.shutdown) return port.close();
  if (request.embed) return void embed(request);
  if ('read' in request) return void readAndAnalyze(request);
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
