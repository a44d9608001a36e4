/**
 * The CLIs' embedder and analysis choices come from the backend registries:
 * a backend registered here, in the test, and nowhere else, is in
 * oc-vector-index's and oc-vector-mcp's --embedder / --llm choices and help,
 * is refused without what it says it needs, and is the one a run uses.
 * (In-process: dist/ would not see what this process registers.)
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AnalysisBackend } from '../../src/analysis/llm/backend.js';
import { registerAnalysisBackend } from '../../src/analysis/llm/backends.js';
import { type ChatReply, ModelEnricher, type ModelEnricherOptions } from '../../src/analysis/llm/model-enricher.js';
import { embedderChoice } from '../../src/cli/embedder-choice.js';
import { readEnvironment } from '../../src/cli/environment.js';
import { UsageError } from '../../src/cli/exit.js';
import { indexMain } from '../../src/cli/index-command.js';
import { mcpMain } from '../../src/cli/mcp-command.js';
import type { ServerFailure } from '../../src/models/http.js';
import type { Embedder, EmbedderBackend } from '../../src/index.js';
import { normalizeRows, registerEmbedderBackend } from '../../src/internal.js';
import { cleanedUpAfterEach, tempRepo } from '../helpers/repo.js';

const owned = cleanedUpAfterEach();

/** A deterministic in-process embedder: each word's length counted into one of `dimension` buckets. */
class LengthEmbedder implements Embedder {
  readonly inProcess = true;
  readonly allowsZeroVectors = true;
  calls = 0;
  constructor(readonly dimension: number) {}

  get id(): string {
    return `word-length:${this.dimension}`;
  }

  async init(): Promise<void> {}

  async embedDocuments(texts: readonly string[]): Promise<Float32Array> {
    this.calls++;
    const out = new Float32Array(texts.length * this.dimension);
    texts.forEach((text, row) => {
      for (const word of text.match(/\w+/g) ?? []) out[row * this.dimension + (word.length % this.dimension)]! += 1;
    });
    return normalizeRows(out, this.dimension);
  }

  async embedQuery(text: string): Promise<Float32Array> {
    return this.embedDocuments([text]);
  }
}

const embedderCreated: object[] = [];
const lengthBackend: EmbedderBackend<{ model?: string }> = {
  name: 'word-length',
  create(options) {
    embedderCreated.push(options);
    return new LengthEmbedder(16);
  },
  fromId: (rest) => (rest === '16' ? new LengthEmbedder(16) : undefined),
};
registerEmbedderBackend(lengthBackend);

/** A model that answers every file with a summary and no elements: enough for a run to count its calls. */
class CannedEnricher extends ModelEnricher {
  readonly prompts: string[] = [];

  protected async chat(prompt: string): Promise<ChatReply> {
    this.prompts.push(prompt);
    const path = /File: (\S+)/.exec(prompt)?.[1] ?? 'x';
    return { content: JSON.stringify({ 'file-path': path, language: 'x', summary: 'S', imports: [], elements: [] }) };
  }

  protected describeFailure(error: unknown): ServerFailure {
    return { kind: 'invalid-response', message: String(error) };
  }
}

interface CannedOptions extends ModelEnricherOptions {
  kind?: string;
  model?: string;
  endpoint?: string;
}

const enrichers: { options: CannedOptions; enricher: CannedEnricher }[] = [];
const cannedBackend: AnalysisBackend<CannedOptions> = {
  name: 'canned',
  create(options) {
    const enricher = new CannedEnricher(options.model ?? 'canned-default', options);
    enrichers.push({ options, enricher });
    return enricher;
  },
  modelName: { required: 'the model the canned server serves' },
};
registerAnalysisBackend(cannedBackend);

/** What `run` writes to stdout, and its exit code. */
async function captured(run: () => Promise<number>): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    return { code: await run(), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

beforeEach(() => {
  // Only the flags choose: not an embedder or a model server of the machine running the tests.
  for (const name of ['OCVECTOR_EMBEDDER', 'OCVECTOR_EMBEDDING_MODEL', 'OCVECTOR_ANALYSIS_MODEL', 'OCVECTOR_STORE'])
    vi.stubEnv(name, '');
  vi.stubEnv('OLLAMA_HOST', 'http://127.0.0.1:9');
  embedderCreated.length = 0;
  enrichers.length = 0;
});
afterEach(() => {
  vi.unstubAllEnvs();
});

function sourceRepo() {
  owned.repo = tempRepo({
    'src/auth.ts': 'export function hashPassword(password: string): string {\n  return password.trim();\n}\n',
  });
  return owned.repo;
}

describe('a backend registered at run time, and nowhere else', () => {
  it('is among the choices in the help of oc-vector-index and oc-vector-mcp', async () => {
    for (const main of [indexMain, mcpMain]) {
      const help = await captured(() => main(['--help']));
      expect(help.code).toBe(0);
      const text = help.stdout.replace(/\s+/g, ' ');
      expect(text).toMatch(/--embedder <kind> .*\(choices: "auto", "builtin", "ollama", "openai", "word-length"\)/);
      expect(text).toMatch(/--llm <kind> .*\(choices: "ollama", "openai", "canned"\)/);
      // Its help says what it needs, from what the backend says.
      expect(text).toMatch(/ollama, openai \(with --model and --openai-base-url\), or canned \(with --model\)/);
    }
  });

  it('is the embedder oc-vector-index uses when --embedder names it', async () => {
    const repo = sourceRepo();
    const run = await captured(() => indexMain(['--no-llm', '--embedder', 'word-length', '--json', repo.root]));
    expect(run.code, run.stderr).toBe(0);
    expect(embedderCreated).toEqual([{}]);
    expect(JSON.parse(run.stdout).summary.embedder).toBe('word-length:16');
  });

  it('is the analysis model oc-vector-index asks when --llm names it, refused without the model it needs', async () => {
    const repo = sourceRepo();
    const refused = await captured(() => indexMain(['--llm', 'canned', '--embedder', 'builtin', repo.root]));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      '--llm canned needs --model (or OCVECTOR_ANALYSIS_MODEL): the model the canned server serves',
    );
    expect(enrichers).toEqual([]);

    const run = await captured(() =>
      indexMain(['--llm', 'canned', '--model', 'canned-7b', '--embedder', 'builtin', '--json', repo.root]),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(enrichers).toHaveLength(1);
    expect(enrichers[0]!.options).toMatchObject({ kind: 'canned', model: 'canned-7b' });
    expect(enrichers[0]!.enricher.prompts).toHaveLength(1);
    expect(enrichers[0]!.enricher.prompts[0]).toContain('hashPassword');
  });
});

describe('what the flags and the environment ask of a registered embedder backend', () => {
  it('is read from OCVECTOR_EMBEDDER by its name, and given the model --embedding-model names', () => {
    const env = readEnvironment({ OCVECTOR_EMBEDDER: 'Word-Length' });
    expect(env.embedder).toBe('word-length');
    expect(embedderChoice({}, env)).toBe('word-length');
    expect(embedderChoice({ embedder: 'word-length', embeddingModel: 'm' }, env)).toEqual({
      kind: 'word-length',
      model: 'm',
    });
  });

  it('keeps the checks each backend asks for: no model for the built-in one, one for an OpenAI-compatible server', () => {
    const env = readEnvironment({});
    expect(() => embedderChoice({ embedder: 'builtin', embeddingModel: 'm' }, env)).toThrow(
      new UsageError('--embedding-model names a model: it cannot go with --embedder builtin'),
    );
    expect(() => embedderChoice({ embedder: 'openai' }, env)).toThrow(
      new UsageError(
        '--embedder openai needs --embedding-model (or OCVECTOR_EMBEDDING_MODEL): the embedding model the server serves',
      ),
    );
    expect(embedderChoice({ embedder: 'openai' }, readEnvironment({ OCVECTOR_EMBEDDING_MODEL: 'e5' }))).toEqual({
      kind: 'openai',
    });
    expect(embedderChoice({ embeddingModel: 'm' }, env)).toEqual({ model: 'm' });
    expect(embedderChoice({ embedder: 'auto' }, env)).toBe('auto');
    expect(embedderChoice({}, env)).toBeUndefined();
  });
});
