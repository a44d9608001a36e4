/** The model-server layer's internal exports: the HTTP client, the Ollama and OpenAI clients, their defaults, the circuit breaker. */
export { DEFAULT_ANALYSIS_MODEL, DEFAULT_OLLAMA_HOST, OLLAMA_ENRICHER_DEFAULTS } from './config.js';
export { CircuitBreaker } from './circuit-breaker.js';
