/** The analysis backend registry: makeEnricher asks the backend a choice's kind names, with its server's settings only. */
import { describe, expect, it } from 'vitest';
import { AnalysisError } from '../../src/analysis/errors.js';
import { analysisBackends, registerAnalysisBackend } from '../../src/analysis/llm/backends.js';
import { type LlmChoice, makeEnricher } from '../../src/analysis/llm/choose-enricher.js';
import { OllamaEnricher } from '../../src/analysis/llm/ollama-enricher.js';
import { OpenAIEnricher } from '../../src/analysis/llm/openai-enricher.js';

describe('makeEnricher', () => {
  it('makes the default backend (Ollama) for true, with the address of the server given, not its embedding model', () => {
    const enricher = makeEnricher(true, { ollama: { host: 'http://gpu-box:11434', model: 'nomic-embed-text' } }, {});
    expect(enricher).toBeInstanceOf(OllamaEnricher);
    expect(enricher?.model).toBe('qwen2.5-coder');
    expect(makeEnricher(false, {}, {})).toBeUndefined();
  });

  it("makes the backend `kind` names, with the choice's model over the server's", () => {
    const enricher = makeEnricher(
      { kind: 'openai', model: 'coder' },
      { openai: { baseUrl: 'http://127.0.0.1:8080/v1', model: 'bge-m3' } },
      {},
    );
    expect(enricher).toBeInstanceOf(OpenAIEnricher);
    expect(enricher?.model).toBe('coder');
  });

  it('refuses a kind no backend has, naming those there are', () => {
    const choice = { kind: 'lmstudio', model: 'coder' } as LlmChoice;
    expect(() => makeEnricher(choice, {}, {})).toThrow(AnalysisError);
    expect(() => makeEnricher(choice, {}, {})).toThrow(
      /no analysis backend is named "lmstudio" \(there are ollama, openai/,
    );
  });

  it('refuses to register a second backend of a name already taken', () => {
    const [ollama] = analysisBackends();
    expect(() => registerAnalysisBackend(ollama!)).toThrow(TypeError);
    expect(() => registerAnalysisBackend({ ...ollama!, name: '' })).toThrow(TypeError);
  });
});
