/**
 * A worker thread of SearcherPool: one Searcher over the pool's index (its
 * own database connection and vector index), answering the calls the pool
 * hands it one after another.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Searcher } from '../searcher.js';
import { encodeError, type FromWorker, type SearcherFacts, type SearchWorkerData, type ToWorker } from './protocol.js';

const port = parentPort!;
const { options, preload } = workerData as SearchWorkerData;
const send = (message: FromWorker) => port.postMessage(message);

/** What the pool was last told: the repository list (the searcher keeps the same array until it changes) and the embedder. */
let said: { repositories: unknown; embedderId: string } | undefined;
/** The searcher's facts when they differ from those last sent. */
function changedFacts(searcher: Searcher): SearcherFacts | undefined {
  const repositories = searcher.repositories();
  const embedderId = searcher.embedderId;
  if (said && said.repositories === repositories && said.embedderId === embedderId) return undefined;
  said = { repositories, embedderId };
  return { indexDir: searcher.indexDir, root: searcher.root, embedderId, repositories };
}

async function open(): Promise<Searcher | undefined> {
  try {
    for (const module of preload) await import(module);
    const searcher = await Searcher.open({ ...options, onEvent: (event) => send({ event }) });
    send({ opened: changedFacts(searcher)! });
    return searcher;
  } catch (error) {
    send({ openFailed: encodeError(error) });
    return undefined;
  }
}

const opened = open();
/** Calls being answered: a shutdown lets them finish before the searcher closes. */
const answering = new Set<Promise<void>>();

async function answer(searcher: Searcher, message: Exclude<ToWorker, { shutdown: true }>): Promise<void> {
  try {
    const method = searcher[message.method] as (...args: unknown[]) => Promise<unknown>;
    const value = await method.apply(searcher, message.args);
    const facts = changedFacts(searcher);
    send({ id: message.id, value, ...(facts ? { facts } : {}) });
  } catch (error) {
    send({ id: message.id, error: encodeError(error) });
  }
}

port.on('message', (message: ToWorker) => {
  void opened.then(async (searcher) => {
    if ('shutdown' in message) {
      await Promise.allSettled(answering);
      searcher?.close();
      return port.close();
    }
    if (!searcher) return; // the pool adopts only a worker that opened the index
    const call = answer(searcher, message);
    answering.add(call);
    await call;
    answering.delete(call);
  });
});
