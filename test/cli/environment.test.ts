/** The environment variables, read by the CLIs alone and turned into options. */
import { describe, expect, it } from 'vitest';
import { ollamaOptions, openAIOptions, readEnvironment } from '../../src/cli/environment.js';

describe('the CLIs read the environment', () => {
  it('reads every variable ocvector knows', () => {
    const env = readEnvironment({
      OLLAMA_HOST: 'gpu-box:11434',
      OCVECTOR_EMBEDDER: 'Builtin',
      OCVECTOR_EMBEDDING_MODEL: 'mxbai-embed-large',
      OCVECTOR_ANALYSIS_MODEL: 'qwen3-coder',
      OCVECTOR_API_KEY: 'sk-local',
      OCVECTOR_LLM: 'off',
      OCVECTOR_NATIVE_PATH: '/opt/ocvector.node',
      OCVECTOR_DEBUG: '1',
    });
    expect(env).toEqual({
      ollamaHost: 'gpu-box:11434',
      embedder: 'builtin',
      embeddingModel: 'mxbai-embed-large',
      analysisModel: 'qwen3-coder',
      apiKey: 'sk-local',
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
      apiKey: undefined,
      llm: true,
      nativePath: undefined,
      debug: false,
    });
    expect(readEnvironment({ OCVECTOR_EMBEDDER: 'fastest', OCVECTOR_LLM: 'yes' })).toMatchObject({
      embedder: 'auto',
      llm: true,
    });
    expect(readEnvironment({ OCVECTOR_EMBEDDER: 'OpenAI' }).embedder).toBe('openai');
  });

  it('puts --ollama-host before OLLAMA_HOST in the options for the library', () => {
    const env = readEnvironment({ OLLAMA_HOST: 'from-env', OCVECTOR_EMBEDDING_MODEL: 'm' });
    expect(ollamaOptions(undefined, env)).toEqual({ host: 'from-env', model: 'm' });
    expect(ollamaOptions('from-flag', env)).toEqual({ host: 'from-flag', model: 'm' });
    expect(ollamaOptions(undefined, readEnvironment({}))).toEqual({});
  });

  it('gives an OpenAI-compatible server the base URL of the flag and OCVECTOR_API_KEY, never OPENAI_API_KEY', () => {
    const env = readEnvironment({
      OCVECTOR_API_KEY: 'sk-local',
      OPENAI_API_KEY: 'sk-hosted',
      OCVECTOR_EMBEDDING_MODEL: 'e5',
    });
    expect(openAIOptions('http://127.0.0.1:8080/v1', env)).toEqual({
      baseUrl: 'http://127.0.0.1:8080/v1',
      apiKey: 'sk-local',
      model: 'e5',
    });
    expect(openAIOptions(undefined, readEnvironment({ OPENAI_API_KEY: 'sk-hosted' }))).toEqual({});
  });

  it('takes the base URL from OCVECTOR_OPENAI_BASE_URL when no flag gives one, the flag first', () => {
    const env = readEnvironment({ OCVECTOR_OPENAI_BASE_URL: 'http://gpu-box:8080/v1' });
    expect(env.openaiBaseUrl).toBe('http://gpu-box:8080/v1');
    expect(openAIOptions(undefined, env)).toEqual({ baseUrl: 'http://gpu-box:8080/v1' });
    expect(openAIOptions('http://127.0.0.1:8080/v1', env)).toEqual({ baseUrl: 'http://127.0.0.1:8080/v1' });
  });
});
