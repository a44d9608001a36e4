/**
 * Whether a command that indexes (oc-vector-index, the MCP server's reindex)
 * asks a model for descriptions. The kinds --llm offers, what each needs and
 * the help that says so come from the analysis backends registered
 * (analysis/llm/backends.ts): a new backend needs nothing here.
 */
import type { AnalysisBackend } from '../analysis/llm/backend.js';
import {
  analysisBackendNamed,
  analysisBackends,
  type AnalysisBackendName,
  DEFAULT_ANALYSIS_BACKEND,
} from '../analysis/llm/backends.js';
import type { LlmChoice } from '../analysis/llm/choose-enricher.js';
import type { Environment } from './environment.js';
import { UsageError } from './exit.js';

export interface AnalysisFlags {
  /** false for --no-llm; the backend's name for --llm <kind>; undefined when neither was given. */
  llm?: boolean | AnalysisBackendName;
  /** --model. */
  model?: string;
}

/** Where the model servers are, under each backend's name: `ollama` (--ollama-host or OLLAMA_HOST), `openai` (--openai-base-url). */
export interface AnalysisServers {
  readonly [backend: string]: object | undefined;
}

/** What --llm offers: each backend registered (this version's first). */
export function analysisKinds(): AnalysisBackendName[] {
  return analysisBackends().map((backend) => backend.name);
}

/** The kinds --llm offers, as its help names them: "ollama, or openai (with --model and --openai-base-url)". */
export function analysisKindsHelp(): string {
  const kinds = analysisBackends().map((backend) => {
    const needs = [
      ...(typeof backend.modelName === 'object' ? ['--model'] : []),
      ...(backend.needs ? [backend.needs.flag] : []),
    ];
    return needs.length > 0 ? `${backend.name} (with ${needs.join(' and ')})` : backend.name;
  });
  return kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')}, or ${kinds.at(-1)}` : kinds.join('');
}

/**
 * LLM analysis as asked. A backend other than the default only when asked
 * for by --llm <kind>, with what it needs (a model, a server: nothing is
 * guessed). Not asked either way: on when the default backend says its
 * model is there, else off with a note, so that a machine without a model
 * server is not made to try and fail for every file.
 */
export async function analysisChoice(
  flags: AnalysisFlags,
  servers: AnalysisServers,
  env: Environment,
  onNote: (note: string) => void,
): Promise<LlmChoice | undefined> {
  if (flags.llm === false) {
    if (flags.model) throw new UsageError('--model names an analysis model: it cannot go with --no-llm');
    return false;
  }
  // Asked for by name (a model alone names the default's): no probe, the model answers or each file says why not.
  const named = typeof flags.llm === 'string' ? flags.llm : flags.model ? DEFAULT_ANALYSIS_BACKEND : undefined;
  if (named !== undefined) return askedFor(analysisBackendNamed(named), flags.model ?? env.analysisModel, servers);
  if (!env.llm) return false;
  const model = env.analysisModel;
  const unavailable = await analysisBackendNamed(DEFAULT_ANALYSIS_BACKEND).unavailable?.(
    model,
    servers[DEFAULT_ANALYSIS_BACKEND] ?? {},
  );
  if (unavailable === undefined) return model ? { model } : undefined;
  onNote(`${unavailable}: syntax-tree analysis only (--model names one; --no-llm skips this check)`);
  return false;
}

/** The choice of a backend asked for by name, refused without what it needs. */
function askedFor(backend: AnalysisBackend, model: string | undefined, servers: AnalysisServers): LlmChoice {
  const { name, modelName, needs } = backend;
  if (typeof modelName === 'object' && !model)
    throw new UsageError(`--llm ${name} needs --model (or OCVECTOR_ANALYSIS_MODEL): ${modelName.required}`);
  if (needs && !(servers[name] as Readonly<Record<string, unknown>> | undefined)?.[needs.setting])
    throw new UsageError(`--llm ${name} needs ${needs.flag}: ${needs.what}`);
  if (name === DEFAULT_ANALYSIS_BACKEND) return model ? { model } : true;
  return { kind: name, ...(model ? { model } : {}) };
}
