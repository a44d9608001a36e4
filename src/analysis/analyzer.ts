/**
 * Analysis of one file: screen the bytes, pick the analyser by language, and
 * return a CodeFile (or the reason the file was skipped). Code goes through
 * tree-sitter, which alone decides which elements exist and where; an LLM
 * enricher, when configured, adds meaning on top (see llm/). Nothing here
 * prints: progress and fallbacks are reported through `onEvent`.
 */
import { readFile, stat } from 'node:fs/promises';
import { analyzeSyntax, GrammarUnavailable, type AstAnalysis } from './ast/index.js';
import { DEFAULT_CONTENT_LIMITS, screenContent, type ContentLimits } from './content.js';
import type { AnalysisEvent } from './events.js';
import { analysisOf, detectLanguage } from './languages.js';
import { textWindows } from './text.js';
import type { AnalysisResult, CodeFile, SkippedFile } from './types.js';

/**
 * Adds model-derived meaning to an AST analysis; never changes which
 * elements exist. OllamaEnricher is the one that ships; tests and other
 * model servers supply their own.
 */
export interface Enricher {
  /** The model that answers, as reported in summaries and `--status`. */
  readonly model: string;
  /** Model calls made so far (answers from a cache make none). */
  readonly calls: number;
  enrich(file: CodeFile, text: string): Promise<CodeFile>;
  /** The model calls `enrich` would make for this file now (none when its answers are cached): for dry runs. */
  plannedCalls(file: CodeFile, text: string): Promise<number>;
}

/** An analysis and, for a file that was read as text, that text as analysis saw it. */
export interface AnalysisOutput {
  result: AnalysisResult;
  text?: string;
}

export interface AnalyzerOptions {
  limits?: Partial<ContentLimits>;
  enricher?: Enricher;
  onEvent?: (event: AnalysisEvent) => void;
}

export class Analyzer {
  readonly #limits: ContentLimits;
  readonly #enricher: Enricher | undefined;
  readonly #emit: (event: AnalysisEvent) => void;

  constructor(options: AnalyzerOptions = {}) {
    this.#limits = { ...DEFAULT_CONTENT_LIMITS, ...options.limits };
    this.#enricher = options.enricher;
    this.#emit = options.onEvent ?? (() => {});
  }

  /** Reads and analyses a file; files over the size limit are not read at all. */
  async analyzeFile(path: string): Promise<AnalysisResult> {
    let bytes: Uint8Array;
    try {
      const info = await stat(path);
      if (!info.isFile()) return this.#skip({ path, skipped: 'unreadable', detail: 'not a regular file' });
      if (info.size > this.#limits.maxBytes) {
        return this.#skip({
          path,
          skipped: 'too-large',
          detail: `${info.size} bytes, over the limit of ${this.#limits.maxBytes}`,
        });
      }
      bytes = await readFile(path);
    } catch (error) {
      return this.#skip({ path, skipped: 'unreadable', detail: (error as Error).message });
    }
    return this.analyzeBytes(path, bytes);
  }

  async analyzeBytes(path: string, bytes: Uint8Array): Promise<AnalysisResult> {
    return (await this.analyzeWithText(path, bytes)).result;
  }

  /** The same, with the text analysis read (decoded, credentials redacted), for a caller that needs it too. */
  async analyzeWithText(path: string, bytes: Uint8Array): Promise<AnalysisOutput> {
    const screened = screenContent(bytes, this.#limits);
    if (!screened.ok) return { result: this.#skip({ path, skipped: screened.reason, detail: screened.detail }) };
    const file = analyzeText(path, screened.text, screened.warnings);
    for (const message of file.warnings) this.#emit({ type: 'warning', path, message });
    if (!this.#enricher || file.source !== 'ast') return { result: file, text: screened.text };
    return { result: await this.#enricher.enrich(file, screened.text), text: screened.text };
  }

  #skip(skipped: SkippedFile): SkippedFile {
    this.#emit({ type: 'skipped', path: skipped.path, reason: skipped.skipped, detail: skipped.detail });
    return skipped;
  }
}

/** The model-free analysis of decoded text: tree-sitter for code, splitters for the rest. */
export function analyzeText(path: string, text: string, warnings: string[] = []): CodeFile {
  // The head is enough for a shebang, and for telling a C++ header from a C one.
  const language = detectLanguage(path, text.slice(0, HEAD_CHARS));
  const analysis = analysisOf(language);
  if (analysis.kind === 'code') {
    let syntax: AstAnalysis;
    try {
      syntax = analyzeSyntax(language, text);
    } catch (error) {
      // A grammar that does not load (or a query that does not fit it) costs
      // this language its elements, never the run: its files become windows.
      const reason =
        error instanceof GrammarUnavailable
          ? error.message
          : `the ${language} extractor failed (${(error as Error).message.split('\n')[0]})`;
      return {
        path,
        language,
        summary: '',
        imports: [],
        elements: textWindows(path, text),
        source: 'text',
        warnings: [...warnings, `${reason}; analysed as text windows`],
      };
    }
    const fileWarnings = [...warnings];
    if (syntax.syntaxErrors > 0) {
      fileWarnings.push(
        `syntax errors: tree-sitter recovered from ${syntax.syntaxErrors} error region(s); elements outside them are kept`,
      );
    }
    return {
      path,
      language,
      summary: syntax.summary,
      imports: syntax.imports,
      elements: syntax.elements,
      calls: syntax.calls,
      source: 'ast',
      warnings: fileWarnings,
    };
  }
  const elements = analysis.split(path, text, language);
  return { path, language, summary: '', imports: [], elements, source: 'text', warnings };
}

const HEAD_CHARS = 4_096;
