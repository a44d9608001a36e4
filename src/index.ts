/**
 * ocvector: local semantic code search. The public API: what an
 * application needs to index a repository, search it, hand the search to
 * an agent, and use the FAISS binding on its own; the errors it may catch;
 * the types of all of these. docs/api.md says what each name is for, and
 * test/docs/api.test.ts keeps it and this list the same: a name added here
 * is a promise to users, a name removed breaks them.
 *
 * Everything else (the store, the analysis internals, query parsing,
 * ranking, the evaluation harness) is reachable from `ocvector/internal`
 * for tests, benchmarks and tools of this repository, with no promise of
 * stability. The MCP server is `ocvector/mcp`.
 */

// Errors: one base class, a subclass per layer; branch on `code` (docs/architecture.md, "Errors").
export { OcvectorError } from './errors.js';
export { FilesError, PathOutsideRootError } from './files/errors.js';
export type { FilesErrorCode } from './files/errors.js';
export { FaissError } from './native/errors.js';
export type { FaissErrorCode } from './native/errors.js';
export { AnalysisError } from './analysis/errors.js';
export type { AnalysisErrorCode } from './analysis/errors.js';
export { EmbedderError } from './vector/embedder.js';
export type { EmbedderErrorCode } from './vector/embedder.js';
export { StoreError } from './store/errors.js';
export type { StoreErrorCode } from './store/errors.js';
export { SearchError } from './search/errors.js';
export type { SearchErrorCode } from './search/errors.js';

// Indexing.
export { Indexer } from './indexing/indexer.js';
export type { IndexerOptions, RunOptions } from './indexing/indexer.js';
export type { FileChange, IndexEvent, IndexSummary, LastRun } from './indexing/events.js';
export { watchIndex } from './indexing/watch.js';
export type { IndexWatcher, WatchOptions } from './indexing/watch.js';
export { indexStatus } from './indexing/status.js';
export type { IndexStatus, StatusOptions } from './indexing/status.js';
export type { DryRunGroup, DryRunReport } from './indexing/dry-run.js';
export type { PostgresChoice, StoreChoice, VectorIndexEvent, VectorIndexOptions } from './store/open-options.js';

// Analysis: the analyzer on its own, and what the Indexer accepts in place of its own parts.
export { Analyzer } from './analysis/analyzer.js';
export type { AnalyzerOptions, Enricher } from './analysis/analyzer.js';
export { createAnalyzer } from './analysis/create.js';
export type { CreateAnalyzerOptions } from './analysis/create.js';
export type { OllamaEnricherOptions } from './analysis/llm/ollama-enricher.js';
export type { OpenAIEnricherOptions } from './analysis/llm/openai-enricher.js';
export type { ModelEnricher, ModelEnricherOptions } from './analysis/llm/model-enricher.js';
export type { LlmChoice } from './analysis/llm/choose-enricher.js';
export type { OpenAIServerOptions } from './models/openai-client.js';
export type { FileAnalyzer } from './indexing/pool.js';
export type { AnalysisEvent, LlmFallbackReason } from './analysis/events.js';
export { isSkipped } from './analysis/types.js';
export type { AnalysisResult, CodeElement, CodeFile, ElementType, Language, SkippedFile } from './analysis/types.js';
export type { ContentLimits } from './analysis/content.js';
export { resolveOllamaHost } from './models/config.js';

// Embedders, and the registry that takes another kind.
export type { Embedder, EmbedderInitOptions, QueryEmbeddingOptions } from './vector/embedder.js';
export { BuiltinEmbedder } from './vector/builtin-embedder.js';
export type { BuiltinEmbedderOptions } from './vector/builtin-embedder.js';
export { OllamaEmbedder } from './vector/ollama-embedder.js';
export type { OllamaEmbedderOptions } from './vector/ollama-embedder.js';
export { OpenAIEmbedder } from './vector/openai-embedder.js';
export type { OpenAIEmbedderOptions } from './vector/openai-embedder.js';
export type { RemoteEmbedderOptions } from './vector/remote-embedder.js';
export { ollamaHasModel } from './vector/choose.js';
export type { EmbedderChoice } from './vector/choose.js';
export type { EmbedderBackend } from './vector/backend.js';
export { registerEmbedderBackend } from './vector/backends.js';
export type { EmbedderBackendName, EmbedderOptions } from './vector/backends.js';

// Search.
export { Searcher } from './search/searcher.js';
export { SearcherPool } from './search/pool/searcher-pool.js';
export type { SearcherPoolOptions } from './search/pool/searcher-pool.js';
export type { SearchService } from './search/search-service.js';
export type {
  SearchEvent,
  SearcherOptions,
  SearchMode,
  SearchOptions,
  SearchResponse,
  SearchResult,
  SearchSignals,
  SearchTimings,
  EmbedderStatus,
} from './search/searcher.js';
export type { SearchFilters } from './search/filters.js';
export type { FusionWeights } from './search/ranking/fusion.js';
export type { QueryKind } from './search/query.js';
export type { SnippetOptions } from './search/source.js';
export type {
  ReferenceDefinition,
  ReferenceFile,
  ReferenceSite,
  ReferencesOptions,
  ReferencesResponse,
} from './search/references.js';
export type {
  FileEvidence,
  FileResult,
  FileSearchOptions,
  FileSearchResponse,
} from './search/localise/file-search.js';
export { findIndex } from './search/find-index.js';
export type { FoundIndex } from './search/find-index.js';

// The agent tool and its adapters.
export { CodebaseSearchTool } from './tool/codebase-search-tool.js';
export { FindReferencesTool } from './tool/find-references-tool.js';
export type { FindReferencesArgs, FindReferencesOutput } from './tool/references-schema.js';
export { FindFilesTool } from './tool/find-files-tool.js';
export type { FileEvidenceHit, FileHit, FindFilesArgs, FindFilesOutput } from './tool/files-schema.js';
export type {
  AgentTool,
  CodebaseSearchToolOptions,
  PermissionCallback,
  PermissionDecision,
  PermissionRequest,
} from './tool/codebase-search-tool.js';
export type {
  CodebaseSearchArgs,
  CodebaseSearchExplanation,
  CodebaseSearchHit,
  CodebaseSearchOutput,
  CodebaseSearchScoreTerm,
} from './tool/schema.js';
export type { ToolBudget } from './tool/budget.js';
export {
  anthropicToolResult,
  dispatchToolCall,
  ollamaToolMessage,
  openAIToolMessage,
  toAnthropicTool,
  toOllamaTool,
  toOpenAITool,
} from './tool/adapters.js';
export type {
  AnthropicToolDefinition,
  FunctionToolDefinition,
  ToolCallResult,
} from './tool/adapters.js';

// The FAISS binding.
export { FaissIndex } from './native/faiss-index.js';
export type { CreateIndexOptions, KnnResult, LoadIndexOptions, SearchParams } from './native/faiss-index.js';
export { blasInfo, faissVersion, getNumThreads, gpuInfo, setNumThreads } from './native/system.js';
export { setNativeAddonPath } from './native/addon.js';
export type { BlasInfo, Device, GpuInfo, IndexKind, Metric } from './native/addon.js';
export type { IdsInput } from './native/validate.js';
