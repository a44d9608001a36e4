import { createRequire } from 'node:module';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accepts } from '../../src/models/accepts.js';
import { ollamaHasModel } from '../../src/vector/choose.js';

let server: Server;
let open: number;
/** A port nothing listens on: one the system gave, then closed. */
let closed: number;

/** Every connection the servers took: ended and destroyed at the end, so that close() does not wait on a client's. */
const sockets = new Set<Socket>();

function listen(): Promise<Server> {
  return new Promise((resolve) => {
    const s = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.end();
    });
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
}
const portOf = (s: Server) => (s.address() as { port: number }).port;

beforeAll(async () => {
  server = await listen();
  open = portOf(server);
  const gone = await listen();
  closed = portOf(gone);
  await new Promise((resolve) => gone.close(resolve));
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

describe('accepts', () => {
  it('says whether something takes a connection at a URL', async () => {
    expect(await accepts(`http://127.0.0.1:${open}`, 1_000)).toBe(true);
    expect(await accepts(`http://127.0.0.1:${closed}`, 1_000)).toBe(false);
    // Not judged: the client reports it.
    expect(await accepts('not a url', 1_000)).toBe(true);
  });

  it('lets ollamaHasModel answer false at once where nothing listens, and ask a server that does', async () => {
    const clientLoaded = () =>
      Object.keys(createRequire(import.meta.url).cache).some((path) => /[\\/]ollama[\\/]/.test(path));
    expect(await ollamaHasModel(`http://127.0.0.1:${closed}`, 'nomic-embed-text')).toBe(false);
    expect(clientLoaded()).toBe(false);
    // Something that accepts but speaks no HTTP: the client is asked, and finds no model.
    expect(await ollamaHasModel(`http://127.0.0.1:${open}`, 'nomic-embed-text')).toBe(false);
    expect(clientLoaded()).toBe(true);
  });
});
