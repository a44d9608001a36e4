/** Ollama settings, following the ollama CLI's own conventions for a host (the CLIs read OLLAMA_HOST). */

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';

/** What any enricher does when its options leave something out. */
export const MODEL_ENRICHER_DEFAULTS = {
  timeoutMs: 120_000,
  contextTokens: 8_192,
  failureThreshold: 3,
  /** Calls at a time: one, as a local Ollama answers them (OLLAMA_NUM_PARALLEL is 1 on a CPU). */
  parallelCalls: 1,
} as const;

/** What an OllamaEnricher does when its options leave something out. */
export const OLLAMA_ENRICHER_DEFAULTS = { model: 'qwen2.5-coder', ...MODEL_ENRICHER_DEFAULTS } as const;

export const DEFAULT_ANALYSIS_MODEL = OLLAMA_ENRICHER_DEFAULTS.model;

/** A host may be `host`, `host:port` or a URL (as `OLLAMA_HOST`): make it a URL; none is the default. */
export function resolveOllamaHost(host?: string): string {
  const value = host?.trim();
  if (!value) return DEFAULT_OLLAMA_HOST;
  // As in Ollama itself: without a scheme the default port is 11434; with
  // one, it is the scheme's own (80, 443).
  const hasScheme = /^https?:\/\//.test(value);
  const url = new URL(hasScheme ? value : `http://${value}`);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1'; // a bind address, not a destination
  if (!hasScheme && !url.port) url.port = '11434';
  return url.toString().replace(/\/$/, '');
}
