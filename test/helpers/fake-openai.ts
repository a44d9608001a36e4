/**
 * A server that speaks the OpenAI API as llama.cpp's server, vLLM or LM
 * Studio do (/v1/embeddings, /v1/chat/completions, /v1/models), scripted
 * per request (see ScriptedServer). Like a real one it answers 404
 * `model_not_found` for a model it does not list, and 401 to a request
 * without its API key when it has one; handlers script everything else
 * (500s, hangs, bodies that are not JSON or never end, wrong counts).
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { embeddingRows, type Misbehaviour } from './bad-embeddings.js';
import { type Reply as ScriptedReply, ScriptedServer } from './scripted-server.js';

export interface EmbeddingsRequest {
  model: string;
  input: string | string[];
}

export interface ChatCompletionRequest {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string; json_schema?: { name: string; schema: object; strict?: boolean } };
  temperature?: number;
  stream?: boolean;
}

export interface Reply extends ScriptedReply {
  /** Embeddings (in input order), sent as `data` with their indexes. */
  vectors?: number[][];
  /** The assistant declines (chat): `refusal` set, `content` null. */
  refusal?: string;
}

export interface OpenAIHandlers {
  embeddings?: (request: EmbeddingsRequest, index: number) => Reply | Promise<Reply>;
  chat?: (request: ChatCompletionRequest, index: number) => Reply | Promise<Reply>;
  /** The models it serves; a request for another gets 404. Default: any model is served. */
  models?: string[];
  /** When set, a request without `Authorization: Bearer <apiKey>` gets 401. */
  apiKey?: string;
}

export class FakeOpenAI {
  readonly embeddingRequests: EmbeddingsRequest[] = [];
  readonly chats: ChatCompletionRequest[] = [];
  /** The headers of every request, in order. */
  readonly headers: IncomingHttpHeaders[] = [];
  #server: ScriptedServer | undefined;

  private constructor(private readonly handlers: OpenAIHandlers) {}

  static async start(handlers: OpenAIHandlers): Promise<FakeOpenAI> {
    const fake = new FakeOpenAI(handlers);
    fake.#server = await ScriptedServer.start(
      (path, body, request) => fake.route(path, body, request),
      '{"object": "list", "data": [',
    );
    return fake;
  }

  /** The base URL, as users give it: `http://127.0.0.1:<port>/v1`. */
  get url(): string {
    return `${this.#server!.url}/v1`;
  }

  close(): Promise<void> {
    return this.#server!.close();
  }

  private async route(path: string, body: unknown, request: IncomingMessage): Promise<Reply> {
    this.headers.push(request.headers);
    const { handlers } = this;
    if (handlers.apiKey && request.headers.authorization !== `Bearer ${handlers.apiKey}`)
      return openAIError(401, 'Incorrect API key provided', 'invalid_api_key');
    if (path === '/v1/models')
      return {
        body: { object: 'list', data: (handlers.models ?? []).map((id) => ({ id, object: 'model', owned_by: 'me' })) },
      };
    const model = (body as { model?: string } | undefined)?.model;
    if (handlers.models && model !== undefined && !handlers.models.includes(model))
      return openAIError(404, `The model \`${model}\` does not exist`, 'model_not_found');
    if (path === '/v1/embeddings' && handlers.embeddings) {
      this.embeddingRequests.push(body as EmbeddingsRequest);
      const reply = await handlers.embeddings(body as EmbeddingsRequest, this.embeddingRequests.length - 1);
      if (!reply.vectors) return reply;
      return {
        ...reply,
        body: {
          object: 'list',
          model,
          data: reply.vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
          usage: { prompt_tokens: 1, total_tokens: 1 },
        },
      };
    }
    if (path === '/v1/chat/completions' && handlers.chat) {
      this.chats.push(body as ChatCompletionRequest);
      const reply = await handlers.chat(body as ChatCompletionRequest, this.chats.length - 1);
      if (reply.content === undefined && reply.refusal === undefined) return reply;
      return {
        ...reply,
        body: {
          id: `chatcmpl-${this.chats.length}`,
          object: 'chat.completion',
          model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: reply.content ?? null, refusal: reply.refusal ?? null },
              finish_reason: 'stop',
            },
          ],
        },
      };
    }
    return openAIError(404, `no route ${path}`, 'not_found');
  }
}

function openAIError(status: number, message: string, code: string): Reply {
  return { status, body: { error: { message, type: 'invalid_request_error', param: null, code } } };
}

/**
 * A server whose one embedding model, `fake-embed`, is the built-in embedder
 * at `dimension` dimensions; while `misbehave()` names a misbehaviour, its
 * answers have it (see bad-embeddings.ts).
 */
export function fakeOpenAIEmbeddingServer(
  dimension: number,
  options: { apiKey?: string; misbehave?: () => Misbehaviour | undefined } = {},
): Promise<FakeOpenAI> {
  const { misbehave, ...server } = options;
  return FakeOpenAI.start({
    models: ['fake-embed'],
    ...server,
    embeddings: (request) => {
      const rows = embeddingRows([request.input].flat(), dimension, misbehave?.());
      const data = rows.map((row, index) => `{"object": "embedding", "index": ${index}, "embedding": ${row}}`);
      return { raw: `{"object": "list", "model": ${JSON.stringify(request.model)}, "data": [${data.join(',')}]}` };
    },
  });
}
