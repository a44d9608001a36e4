/** The vector layer's internal exports (its public ones are in src/index.ts). */
export { buildDocument, buildDocuments, documentHash, qualifiedName } from './document.js';
export type { ElementDocument } from './document.js';
export { cutSnippet, DEFAULT_SNIPPET_LIMITS } from './snippet.js';
export type { SnippetLimits } from './snippet.js';
export { normalizeRows } from './embedder.js';
export { BUILTIN_EMBEDDER_VERSION, BUILTIN_DEFAULT_DIMENSION } from './builtin-embedder.js';
export { DEFAULT_EMBEDDING_MODEL, OLLAMA_EMBEDDER_DEFAULTS } from './ollama-embedder.js';
export { splitIdentifier, stem, terms, words } from '../text/terms.js';
export { chooseEmbedder, embedderFromId } from './choose.js';
export { EMBEDDER_BACKENDS, embedderOptionsOf, registerEmbedderBackend } from './backends.js';
