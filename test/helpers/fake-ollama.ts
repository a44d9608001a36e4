/**
 * A server that speaks Ollama's API (/api/chat with `format`, /api/embed,
 * /api/tags), scripted per request (see ScriptedServer): it can answer
 * well, badly, slowly, with an error status, with a body that is not JSON,
 * with a body that never ends, or hang up.
 */
import { embeddingRows, type Misbehaviour } from './bad-embeddings.js';
import { type Reply as ScriptedReply, ScriptedServer } from './scripted-server.js';

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

export interface Reply extends ScriptedReply {
  /** Tools the assistant asks to call (chat), with `content` (default ''). */
  toolCalls?: ToolCall[];
}

export interface Handlers {
  chat?: (request: ChatRequest, index: number) => Reply | Promise<Reply>;
  embed?: (request: EmbedRequest, index: number) => Reply | Promise<Reply>;
  models?: string[];
}

export class FakeOllama {
  readonly chats: ChatRequest[] = [];
  readonly embeds: EmbedRequest[] = [];
  #server: ScriptedServer | undefined;

  private constructor(private readonly handlers: Handlers) {}

  static async start(handlers: Handlers): Promise<FakeOllama> {
    const fake = new FakeOllama(handlers);
    fake.#server = await ScriptedServer.start((path, body) => fake.route(path, body), '{"embeddings": [');
    return fake;
  }

  /** A URL where nothing listens: connections are refused. */
  static refusingUrl(): Promise<string> {
    return ScriptedServer.refusingUrl();
  }

  get url(): string {
    return this.#server!.url;
  }

  close(): Promise<void> {
    return this.#server!.close();
  }

  private async route(path: string, body: unknown): Promise<Reply> {
    const handlers = this.handlers;
    if (path === '/api/tags')
      return {
        body: { models: (handlers.models ?? ['qwen2.5-coder:latest']).map((name) => ({ name, model: name, size: 1 })) },
      };
    if (path === '/api/chat' && handlers.chat) {
      this.chats.push(body as ChatRequest);
      const reply = await handlers.chat(body as ChatRequest, this.chats.length - 1);
      if (reply.content === undefined && !reply.toolCalls) return reply;
      return {
        ...reply,
        body: {
          model: (body as ChatRequest).model,
          created_at: new Date().toISOString(),
          message: {
            role: 'assistant',
            content: reply.content ?? '',
            ...(reply.toolCalls ? { tool_calls: reply.toolCalls } : {}),
          },
          done: true,
          done_reason: 'stop',
        },
      };
    }
    if (path === '/api/embed' && handlers.embed) {
      this.embeds.push(body as EmbedRequest);
      return handlers.embed(body as EmbedRequest, this.embeds.length - 1);
    }
    return { status: 404, body: { error: `no route ${path}` } };
  }
}

/**
 * A server whose one embedding model, `fake-embed`, is the built-in embedder
 * at `dimension` dimensions; while `misbehave()` names a misbehaviour, its
 * answers have it (see bad-embeddings.ts).
 */
export function fakeEmbeddingServer(
  dimension: number,
  options: { misbehave?: () => Misbehaviour | undefined } = {},
): Promise<FakeOllama> {
  return FakeOllama.start({
    models: ['fake-embed:latest'],
    embed: (request) => {
      const rows = embeddingRows([request.input].flat(), dimension, options.misbehave?.());
      return { raw: `{"model": ${JSON.stringify(request.model)}, "embeddings": [${rows.join(',')}]}` };
    },
  });
}
