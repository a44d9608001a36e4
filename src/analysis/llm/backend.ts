/**
 * An analysis backend: what makes the enrichers of one kind of model server
 * (Ollama's, an OpenAI-compatible one's). A choice names it by `kind`
 * (`llm: { kind: 'openai', … }`, the CLIs' --llm openai); backends.ts
 * registers them, and the CLIs build their choices, checks and help from
 * what each says here.
 */
import type { ModelEnricher, ModelEnricherOptions } from './model-enricher.js';

export interface AnalysisBackend<Options extends ModelEnricherOptions = ModelEnricherOptions> {
  /** What a choice names (`kind`, --llm), and the key of its server's settings among the servers given. */
  readonly name: string;
  /**
   * The enricher a choice of this kind asks for. `options` holds the
   * choice's own options over what it takes of its server's settings from
   * elsewhere (serverSettings), and what belongs to the run (cache, signal,
   * events) over both.
   */
  create(options: Options): ModelEnricher;
  /**
   * What an enricher takes of the settings given for its server elsewhere
   * (an embedder's on the same server: its address, key and deadline, not
   * its model); all of them when absent.
   */
  serverSettings?(settings: object): Partial<Options>;
  /**
   * What a model name is to it, for the CLIs' --model: 'optional' (it has
   * a default), or required, with what the model is ("the chat model the
   * server serves"). Default 'optional'.
   */
  readonly modelName?: 'optional' | { readonly required: string };
  /**
   * A server setting without which the CLIs refuse it before anything is
   * sent (nothing is guessed): the setting, the flag that gives it, and what
   * it is.
   */
  readonly needs?: { readonly setting: string; readonly flag: string; readonly what: string };
  /**
   * Only the default backend's (backends.ts) is asked: why its model
   * (`model`, else its default) cannot be used now, from a quick look at its
   * server, or undefined when it can. Analysis that nobody asked for is on
   * only when it can, so that a machine without a model server is not made
   * to try and fail for every file.
   */
  unavailable?(model: string | undefined, settings: object): Promise<string | undefined>;
}
