/** The environment variables, read by the CLIs alone and turned into options. */
import { describe, expect, it } from 'vitest';
import { ollamaOptions, readEnvironment } from '../../src/cli/environment.js';

describe('the CLIs read the environment', () => {
  it('reads every variable ocvector knows', () => {
    const env = readEnvironment({
      OLLAMA_HOST: 'gpu-box:11434',
      OCVECTOR_EMBEDDER: 'Builtin',
      OCVECTOR_EMBEDDING_MODEL: 'mxbai-embed-large',
      OCVECTOR_ANALYSIS_MODEL: 'qwen3-coder',
      OCVECTOR_LLM: 'off',
      OCVECTOR_NATIVE_PATH: '/opt/ocvector.node',
      OCVECTOR_DEBUG: '1',
    });
    expect(env).toEqual({
      ollamaHost: 'gpu-box:11434',
      embedder: 'builtin',
      embeddingModel: 'mxbai-embed-large',
      analysisModel: 'qwen3-coder',
      llm: false,
      nativePath: '/opt/ocvector.node',
      debug: true,
    });
  });

  it('has defaults for an empty environment, and reads an unknown embedder as auto', () => {
    expect(readEnvironment({})).toEqual({
      ollamaHost: undefined,
      embedder: undefined,
      embeddingModel: undefined,
      analysisModel: undefined,
      llm: true,
      nativePath: undefined,
      debug: false,
    });
    expect(readEnvironment({ OCVECTOR_EMBEDDER: 'fastest', OCVECTOR_LLM: 'yes' })).toMatchObject({
      embedder: 'auto',
      llm: true,
    });
  });

  it('puts --ollama-host before OLLAMA_HOST in the options for the library', () => {
    const env = readEnvironment({ OLLAMA_HOST: 'from-env', OCVECTOR_EMBEDDING_MODEL: 'm' });
    expect(ollamaOptions(undefined, env)).toEqual({ host: 'from-env', model: 'm' });
    expect(ollamaOptions('from-flag', env)).toEqual({ host: 'from-flag', model: 'm' });
    expect(ollamaOptions(undefined, readEnvironment({}))).toEqual({});
  });
});
