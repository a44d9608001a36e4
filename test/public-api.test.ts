/**
 * The public API of `ocvector`, pinned: a name added here is a promise to
 * its users, a name removed breaks them. Everything else lives behind
 * `ocvector/internal`, which promises nothing.
 */
import { describe, expect, it } from 'vitest';

const PUBLIC_RUNTIME_NAMES = [
  // errors
  'OcvectorError',
  'FilesError',
  'PathOutsideRootError',
  'FaissError',
  'AnalysisError',
  'EmbedderError',
  'StoreError',
  'SearchError',
  // indexing
  'Indexer',
  'INDEXER_DEFAULTS',
  'watchIndex',
  'indexStatus',
  // analysis
  'Analyzer',
  'createAnalyzer',
  'OllamaEnricher',
  'OpenAIEnricher',
  'isSkipped',
  'resolveOllamaHost',
  // embedders
  'BuiltinEmbedder',
  'OllamaEmbedder',
  'OpenAIEmbedder',
  'ollamaHasModel',
  // search
  'Searcher',
  'SEARCH_DEFAULTS',
  'SearcherPool',
  'MAX_SEARCH_WORKERS',
  'findIndex',
  // the agent tool
  'CodebaseSearchTool',
  'FindReferencesTool',
  'FindFilesTool',
  'toOllamaTool',
  'toOpenAITool',
  'toAnthropicTool',
  'dispatchToolCall',
  'ollamaToolMessage',
  'openAIToolMessage',
  'anthropicToolResult',
  // the FAISS binding
  'FaissIndex',
  'blasInfo',
  'faissVersion',
  'getNumThreads',
  'gpuInfo',
  'setNumThreads',
  'setNativeAddonPath',
];

describe('the public API', () => {
  it('exports exactly the pinned runtime names', async () => {
    const api = await import('../src/index.js');
    expect(Object.keys(api).sort()).toEqual([...PUBLIC_RUNTIME_NAMES].sort());
  });

  it('keeps every public name in ocvector/internal too, beside the layers', async () => {
    const api = await import('../src/index.js');
    const internal = await import('../src/internal.js');
    for (const name of Object.keys(api)) expect(internal).toHaveProperty(name);
    expect(Object.keys(internal).length).toBeGreaterThan(Object.keys(api).length);
  });

  it('gives every error class one base and a code', async () => {
    const {
      OcvectorError,
      FilesError,
      PathOutsideRootError,
      FaissError,
      AnalysisError,
      EmbedderError,
      StoreError,
      SearchError,
    } = await import('../src/index.js');
    const errors = [
      new FilesError('f', 'PATH_NOT_FOUND'),
      new PathOutsideRootError('p'),
      new FaissError('f', 'IO'),
      new AnalysisError('a', 'NOT_CONFIGURED'),
      new EmbedderError('e', 'TIMEOUT'),
      new StoreError('s', 'NOT_FOUND'),
      new SearchError('q', 'BAD_QUERY'),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(OcvectorError);
      expect(error.code).toMatch(/^[A-Z][A-Z_]*$/);
      expect(error.name).toBe(error.constructor.name);
    }
    expect(new PathOutsideRootError('p')).toBeInstanceOf(FilesError);
    expect(new PathOutsideRootError('p').code).toBe('OUTSIDE_ROOT');
  });
});
