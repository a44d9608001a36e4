/**
 * The analysis backends, by name: the name is what a choice's `kind` and the
 * CLIs' --llm say, and the key of its server's settings among the servers
 * given. A new backend is one file (its AnalysisBackend, backend.ts) and one
 * entry in ANALYSIS_BACKENDS. An application or a test may register one at
 * run time (registerAnalysisBackend).
 */
import { AnalysisError } from '../errors.js';
import type { AnalysisBackend } from './backend.js';
import type { ModelEnricherOptions } from './model-enricher.js';
import { ollamaAnalysisBackend } from './ollama-enricher.js';
import { openaiAnalysisBackend } from './openai-enricher.js';

export const ANALYSIS_BACKENDS = {
  ollama: ollamaAnalysisBackend,
  openai: openaiAnalysisBackend,
} as const;

/** The backend that `llm: true`, a choice without `kind` and analysis nobody asked for use: a local Ollama. */
export const DEFAULT_ANALYSIS_BACKEND: keyof typeof ANALYSIS_BACKENDS = 'ollama';

/** A registered backend's name; a backend registered at run time has a name of its own. */
export type AnalysisBackendName = keyof typeof ANALYSIS_BACKENDS | (string & {});

const registered = new Map<string, AnalysisBackend>(
  Object.values(ANALYSIS_BACKENDS).map((backend) => [backend.name, backend as AnalysisBackend]),
);

/** Adds a backend for this process, asked for by its name. Throws when the name is taken or empty. */
export function registerAnalysisBackend<Options extends ModelEnricherOptions>(backend: AnalysisBackend<Options>): void {
  if (!backend.name || registered.has(backend.name))
    throw new TypeError(`an analysis backend needs a name of its own: "${backend.name}"`);
  registered.set(backend.name, backend as AnalysisBackend);
}

/** The backend of this name; throws AnalysisError NOT_CONFIGURED for none. */
export function analysisBackendNamed(name: string): AnalysisBackend {
  const backend = registered.get(name);
  if (!backend)
    throw new AnalysisError(
      `no analysis backend is named "${name}" (there are ${[...registered.keys()].join(', ')})`,
      'NOT_CONFIGURED',
    );
  return backend;
}

/** The backends registered, in the order they were (this version's first). */
export function analysisBackends(): AnalysisBackend[] {
  return [...registered.values()];
}
