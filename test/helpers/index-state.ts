/** Reads an index back the way a searcher would, for assertions. */
import { checkConsistency, type ConsistencyReport } from '../../src/store/embedded/check.js';
import { openIndex } from '../../src/store/embedded/open-index.js';
import { databaseOf } from '../../src/store/embedded/index-store.js';
import { prepared } from '../../src/store/embedded/sqlite.js';

export interface ElementState {
  vectorId: number;
  path: string;
  type: string;
  name: string;
  startLine: number;
  endLine: number;
}

export async function readIndex(indexDir: string): Promise<{
  elements: ElementState[];
  files: { path: string; status: string; error: string | null }[];
  consistency: ConsistencyReport;
  description: string;
}> {
  const opened = await openIndex(indexDir);
  try {
    const elements = prepared(
      databaseOf(opened.store),
      `SELECT e.vector_id AS vectorId, f.path AS path, e.element_type AS type, e.element_name AS name, e.start_line AS startLine, e.end_line AS endLine
         FROM elements e JOIN files f ON f.id = e.file_id ORDER BY f.path, e.start_line, e.element_name`,
    ).all() as ElementState[];
    const files = prepared(databaseOf(opened.store), 'SELECT path, status, error FROM files ORDER BY path').all() as {
      path: string;
      status: string;
      error: string | null;
    }[];
    return {
      elements,
      files,
      consistency: await checkConsistency(opened.store, opened.vectors),
      description: opened.vectors.index.description,
    };
  } finally {
    opened.close();
  }
}

export function idsByName(elements: ElementState[]): Map<string, number> {
  return new Map(elements.map((e) => [`${e.path}#${e.name}`, e.vectorId]));
}
