/** Ollama settings, following the ollama CLI's own conventions (OLLAMA_HOST). */

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';
export const DEFAULT_ANALYSIS_MODEL = 'qwen2.5-coder';

/** `OLLAMA_HOST` may be `host`, `host:port` or a URL: make it a URL. */
export function resolveOllamaHost(host = process.env.OLLAMA_HOST): string {
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
