/**
 * The evaluations' `--embedder` flag: `builtin`, `ollama:<model>` or `openai:<model>`, reached as
 * the CLIs reach a model server (--ollama-host before OLLAMA_HOST, --openai-base-url with
 * OCVECTOR_API_KEY).
 */
import type { EmbedderChoice, EmbedderOptions } from '../../src/index.js';
import { ollamaOptions, openAIOptions } from '../../src/cli/environment.js';

export interface EvalEmbedder {
  choice: EmbedderChoice;
  /** The chosen backend's options alone: the built-in embedder takes none. */
  options: EmbedderOptions;
}

/** The flag's embedder; throws with a sentence saying what the flag takes. */
export function embedderFlag(
  value: string,
  servers: { ollamaHost?: string | undefined; openaiBaseUrl?: string | undefined },
): EvalEmbedder {
  const [backend, ...modelParts] = value.split(':');
  const model = modelParts.join(':');
  if (backend === 'builtin') return { choice: 'builtin', options: {} };
  if (backend === 'ollama' && model)
    return { choice: 'ollama', options: { ollama: { ...ollamaOptions(servers.ollamaHost), model } } };
  if (backend === 'openai' && model)
    return { choice: 'openai', options: { openai: { ...openAIOptions(servers.openaiBaseUrl), model } } };
  throw new Error(`--embedder takes builtin, ollama:<model> or openai:<model>, not ${value}`);
}

/** The flags' embedder (`--embedder`, `--ollama-host`, `--openai-base-url`), or `fail` with the sentence that says why not. */
export function embedderFromFlags(
  values: { embedder?: string | undefined; 'ollama-host'?: string | undefined; 'openai-base-url'?: string | undefined },
  fail: (message: string) => never,
): EvalEmbedder {
  try {
    return embedderFlag(values.embedder ?? 'builtin', {
      ollamaHost: values['ollama-host'],
      openaiBaseUrl: values['openai-base-url'],
    });
  } catch (error) {
    return fail((error as Error).message);
  }
}
