/**
 * An HTTP server on 127.0.0.1 that speaks Ollama's API (/api/chat with
 * `format`, /api/embed, /api/tags), scripted per request: it can answer
 * well, badly, slowly, with an error status, with a body that is not JSON,
 * with a body that never ends, or hang up.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BuiltinEmbedder } from '../../src/vector/builtin-embedder.js';

export interface ToolCall {
  function: { name: string; arguments: Record<string, unknown> };
}

export interface ChatRequest {
  model: string;
  messages: { role: string; content: string; tool_calls?: ToolCall[]; tool_name?: string }[];
  format?: unknown;
  tools?: { type: string; function: { name: string; description: string; parameters: object } }[];
  options?: Record<string, unknown>;
  stream?: boolean;
}

export interface EmbedRequest {
  model: string;
  input: string | string[];
}

export interface Reply {
  /** HTTP status; default 200. */
  status?: number;
  /** The assistant message's content (chat). */
  content?: string;
  /** Tools the assistant asks to call (chat), with `content` (default ''). */
  toolCalls?: ToolCall[];
  /** A whole JSON body to send instead (embed, errors). */
  body?: unknown;
  delayMs?: number;
  /** Close the connection without answering. */
  hangUp?: boolean;
  /** Send this text as the body, as is (e.g. something that is not JSON). */
  raw?: string;
  /**
   * Send a body that never ends: headers, then `chunk` again and again
   * (every `intervalMs`, else as fast as the client reads) until the client
   * goes away.
   */
  endless?: { chunk: string; intervalMs?: number };
}

export interface Handlers {
  chat?: (request: ChatRequest, index: number) => Reply | Promise<Reply>;
  embed?: (request: EmbedRequest, index: number) => Reply | Promise<Reply>;
  models?: string[];
}

export class FakeOllama {
  readonly chats: ChatRequest[] = [];
  readonly embeds: EmbedRequest[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(handlers: Handlers): Promise<FakeOllama> {
    let fake: FakeOllama | undefined;
    const server = createServer((request, response) => {
      void fake!.route(handlers, request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    fake = new FakeOllama(server, `http://127.0.0.1:${port}`);
    return fake;
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

  private async route(handlers: Handlers, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    let reply: Reply;
    if (request.url === '/api/tags') {
      reply = {
        body: { models: (handlers.models ?? ['qwen2.5-coder:latest']).map((name) => ({ name, model: name, size: 1 })) },
      };
    } else if (request.url === '/api/chat' && handlers.chat) {
      this.chats.push(body as ChatRequest);
      reply = await handlers.chat(body as ChatRequest, this.chats.length - 1);
      if (reply.content !== undefined || reply.toolCalls) {
        reply.body = {
          model: (body as ChatRequest).model,
          created_at: new Date().toISOString(),
          message: {
            role: 'assistant',
            content: reply.content ?? '',
            ...(reply.toolCalls ? { tool_calls: reply.toolCalls } : {}),
          },
          done: true,
          done_reason: 'stop',
        };
      }
    } else if (request.url === '/api/embed' && handlers.embed) {
      this.embeds.push(body as EmbedRequest);
      reply = await handlers.embed(body as EmbedRequest, this.embeds.length - 1);
    } else {
      reply = { status: 404, body: { error: `no route ${request.url}` } };
    }
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (reply.hangUp || response.destroyed) {
      request.socket.destroy();
      return;
    }
    response.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
    if (reply.endless) {
      await sendForever(response, reply.endless.chunk, reply.endless.intervalMs);
      return;
    }
    response.end(reply.raw ?? JSON.stringify(reply.body ?? {}));
  }
}

/** Writes `chunk` until the client closes the connection. */
async function sendForever(response: ServerResponse, chunk: string, intervalMs?: number): Promise<void> {
  response.write('{"embeddings": [');
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

/** A server whose one embedding model, `fake-embed`, is the built-in embedder at `dimension` dimensions. */
export function fakeEmbeddingServer(dimension: number): Promise<FakeOllama> {
  const builtin = new BuiltinEmbedder({ dimension });
  return FakeOllama.start({
    models: ['fake-embed:latest'],
    embed: (request) => {
      const input = [request.input].flat();
      const vectors = builtin.embedDocumentsSync(input);
      return {
        body: {
          model: request.model,
          embeddings: input.map((_, i) => Array.from(vectors.subarray(i * dimension, (i + 1) * dimension))),
        },
      };
    },
  });
}
