/**
 * Whether an Ollama server has a model, asked the way a probe should ask:
 * quickly, and without loading the client when nothing listens. What
 * 'auto' embedding and analysis nobody asked for decide by.
 */
import { accepts } from './accepts.js';
import { ollamaClient } from './ollama-client.js';

/** True when a server answers at `host` within a second and lists the model. */
export async function ollamaHasModel(host: string, model: string): Promise<boolean> {
  // Nothing listening (no Ollama here): known without loading the client.
  if (!(await accepts(host, 1_000))) return false;
  try {
    // Through the client: its answer is size-capped and the deadline covers reading it.
    const { models } = (await ollamaClient(host, { timeoutMs: 1_000 }).list()) as { models?: { name?: string }[] };
    const wanted = model.includes(':') ? model : `${model}:latest`;
    return (models ?? []).some((m) => m.name === model || m.name === wanted);
  } catch {
    return false;
  }
}
