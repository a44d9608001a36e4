/**
 * The analysis model's answers, cached in the index by content (`analysis_cache`):
 * read back parsed only (the enricher checks them against the schema,
 * cachedAnswers), and kept through a rolled-back span: an interrupted rebuild
 * asks the model again only about what it had not answered (minutes a call on
 * a small machine).
 */
import type Database from 'better-sqlite3';
import type { AnalysisCache } from '../../analysis/llm/cache.js';
import type { ModelAnswer } from '../../analysis/llm/resources.js';
import { prepared } from './sqlite.js';

export class AnalysisCacheRows {
  readonly #db: Database.Database;
  readonly #get;
  readonly #put;
  /** Answers cached inside the open span: written again if it is rolled back. */
  readonly #inSpan = new Map<string, string>();

  constructor(db: Database.Database) {
    this.#db = db;
    this.#get = prepared<[string], { answers: string }>(db, 'SELECT answers FROM analysis_cache WHERE key = ?');
    this.#put = prepared(db, 'INSERT OR REPLACE INTO analysis_cache (key, answers, created_at) VALUES (?, ?, ?)');
  }

  cache(): AnalysisCache {
    return {
      get: (key: string) => {
        const row = this.#get.get(key);
        if (!row) return undefined;
        try {
          return JSON.parse(row.answers) as ModelAnswer[];
        } catch {
          return undefined; // a damaged entry is a miss, not a failure
        }
      },
      set: (key: string, answers: ModelAnswer[]) => {
        const json = JSON.stringify(answers);
        this.#put.run(key, json, Date.now());
        if (this.#db.inTransaction) this.#inSpan.set(key, json);
      },
    };
  }

  /** A span began or was committed: nothing of it is to be written again. */
  spanSettled(): void {
    this.#inSpan.clear();
  }

  /** After a span's rollback: its answers written again, in a transaction of their own. */
  restoreAfterRollback(): void {
    const answers = [...this.#inSpan];
    this.#inSpan.clear();
    if (answers.length === 0) return;
    try {
      this.#db
        .transaction(() => {
          for (const [key, json] of answers) this.#put.run(key, json, Date.now());
        })
        .immediate();
    } catch {
      // A cache, written back on the way out of a failed run: the run's own error is the one to report.
    }
  }
}
