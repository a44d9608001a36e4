/**
 * An HTTP server on 127.0.0.1 whose answers are scripted per request: well,
 * badly, slowly, with an error status, with a body that is not JSON, with a
 * body that never ends, or by hanging up. The fake model servers (Ollama's
 * API, an OpenAI-compatible one) route requests to replies; this sends them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Reply {
  /** HTTP status; default 200. */
  status?: number;
  /** The assistant message's content (chat). */
  content?: string;
  /** A whole JSON body to send instead (embed, errors). */
  body?: unknown;
  delayMs?: number;
  /** Close the connection without answering. */
  hangUp?: boolean;
  /** Send this text as the body, as is (e.g. something that is not JSON). */
  raw?: string;
  /**
   * Send a body that never ends: headers, the start of a JSON answer, then
   * `chunk` again and again (every `intervalMs`, else as fast as the client
   * reads) until the client goes away.
   */
  endless?: { chunk: string; intervalMs?: number };
  /** Send these lines (NDJSON: a streamed answer), one every `intervalMs`, then end the body. */
  lines?: { lines: string[]; intervalMs: number };
}

/** Turns a request (its path, its JSON body, the request itself) into a reply. */
export type Route = (path: string, body: unknown, request: IncomingMessage) => Reply | Promise<Reply>;

export class ScriptedServer {
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** `endlessStart` opens an endless body the way the API's answers start (`{"embeddings": [`). */
  static async start(route: Route, endlessStart: string): Promise<ScriptedServer> {
    const server = createServer((request, response) => {
      void answer(route, endlessStart, request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return new ScriptedServer(server, `http://127.0.0.1:${port}`);
  }

  /** A URL where nothing listens: connections are refused. */
  static async refusingUrl(): Promise<string> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    return `http://127.0.0.1:${port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

async function answer(route: Route, endlessStart: string, request: IncomingMessage, response: ServerResponse) {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
  const reply = await route(request.url ?? '/', body, request);
  if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
  if (reply.hangUp || response.destroyed) {
    request.socket.destroy();
    return;
  }
  response.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
  if (reply.endless) {
    response.write(endlessStart);
    await sendForever(response, reply.endless.chunk, reply.endless.intervalMs);
    return;
  }
  if (reply.lines) {
    for (const line of reply.lines.lines) {
      if (response.destroyed) return;
      response.write(`${line}\n`);
      await new Promise((resolve) => setTimeout(resolve, reply.lines!.intervalMs));
    }
    response.end();
    return;
  }
  response.end(reply.raw ?? JSON.stringify(reply.body ?? {}));
}

/** Writes `chunk` until the client closes the connection. */
async function sendForever(response: ServerResponse, chunk: string, intervalMs?: number): Promise<void> {
  const data = Buffer.from(chunk);
  while (!response.destroyed) {
    const drained = response.write(data);
    if (intervalMs) await new Promise((resolve) => setTimeout(resolve, intervalMs));
    else if (!drained) await drainOrClose(response);
  }
}

function drainOrClose(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done).off('close', done);
      resolve();
    };
    response.on('drain', done).on('close', done);
  });
}
