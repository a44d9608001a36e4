/**
 * Builds the evaluation sets from their corpora (run again only to renew a
 * set; the sets are kept under version control):
 *
 *   npm run eval:build-sets
 *
 * A query is the first sentence of a real doc comment, with the element's
 * own name taken out; the answer is that element (and every other element
 * documented with the same sentence) and its file. Elements are picked
 * evenly across the corpus, in path order, so the set is the same on every
 * run of the same sources.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeText, qualifiedName, type EvalQuery } from '../src/internal.js';
import { CORPORA, corpusFiles, lastCommitOf, rootPath, SETS_DIR, type Corpus } from './lib/corpora.js';

const SIZES: Record<string, number> = { ocvector: 120, 'typescript-lib': 200 };
const TYPES = new Set([
  'function',
  'method',
  'class',
  'interface',
  'type-alias',
  'enum',
  'constructor',
  'property',
  'field',
  'constant',
]);

/** The first sentence: up to the first full stop followed by a space, or the first blank line. */
export function firstSentence(description: string): string {
  const paragraph = description
    .split(/\n\s*\n/)[0]!
    .replace(/\s+/g, ' ')
    .trim();
  const end = paragraph.search(/[.!?](\s|$)/);
  return (end >= 0 ? paragraph.slice(0, end + 1) : paragraph).trim();
}

/** The sentence without the element's own name: its qualified form, its last segment, and code spans that hold them. */
export function withoutIdentifier(sentence: string, name: string): string {
  const parts = [name, name.split('.').pop()!].filter((part) => part.length > 1);
  let out = sentence;
  for (const part of parts) {
    const escaped = part.replace(/[.*+?^${}()|[\]\\#]/g, '\\$&');
    out = out
      .replace(new RegExp('`[^`]*' + escaped + '[^`]*`', 'g'), ' ')
      .replace(new RegExp(`(?<![\\w$#])${escaped}(\\(\\))?(?![\\w$])`, 'g'), ' ');
  }
  return out
    .replace(/\{@link\s+([^}|\s]+)[^}]*\}/g, '$1')
    .replace(/\*\*|__|`/g, '') // Markdown emphasis and code marks: nobody types them in a query
    .replace(/\s+([,.;:)])/g, '$1')
    .replace(/\(\s*\)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

interface Candidate {
  sentence: string;
  path: string;
  name: string;
  startLine: number;
  endLine: number;
  /** Other elements of the file share the name: the lines tell them apart. */
  ambiguous: boolean;
}

function candidates(corpus: Corpus): Candidate[] {
  const out: Candidate[] = [];
  for (const file of corpusFiles(corpus)) {
    const path = rootPath(corpus, file);
    const elements = analyzeText(path, readFileSync(join(corpus.source, file), 'utf8')).elements;
    const count = new Map<string, number>();
    for (const element of elements) count.set(qualifiedName(element), (count.get(qualifiedName(element)) ?? 0) + 1);
    for (const element of elements) {
      if (!TYPES.has(element.type) || !element.description) continue;
      const name = qualifiedName(element); // as the index records it
      const sentence = withoutIdentifier(firstSentence(element.description), name);
      const words = sentence.split(' ').filter((word) => /[a-z]/i.test(word));
      if (words.length < 4 || words.length > 30) continue;
      out.push({
        sentence,
        path,
        name,
        startLine: element.startLine,
        endLine: element.endLine,
        ambiguous: count.get(name)! > 1,
      });
    }
  }
  return out;
}

function buildSet(corpus: Corpus, size: number): EvalQuery[] {
  const all = candidates(corpus);
  // Every element documented with the same sentence answers it.
  const bySentence = new Map<string, Candidate[]>();
  for (const candidate of all)
    bySentence.set(candidate.sentence.toLowerCase(), [
      ...(bySentence.get(candidate.sentence.toLowerCase()) ?? []),
      candidate,
    ]);
  const unique = [...bySentence.values()].filter((group) => group.length <= 20); // boilerplate sentences name nothing in particular
  const picked = Array.from(
    { length: Math.min(size, unique.length) },
    (_, i) => unique[Math.floor((i * unique.length) / Math.min(size, unique.length))]!,
  );
  return picked.map((group, i) => ({
    id: `${corpus.name}-${String(i + 1).padStart(3, '0')}`,
    query: group[0]!.sentence,
    expected_paths: [...new Set(group.map((c) => c.path))],
    expected_elements: group.map((c) => ({
      path: c.path,
      name: c.name,
      ...(c.ambiguous ? { start_line: c.startLine, end_line: c.endLine } : {}),
    })),
  }));
}

for (const corpus of Object.values(CORPORA)) {
  const set = buildSet(corpus, SIZES[corpus.name]!);
  const dir = join(SETS_DIR, corpus.name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'queries.jsonl'), set.map((query) => JSON.stringify(query)).join('\n') + '\n');
  writeFileSync(
    join(dir, 'source.json'),
    `${JSON.stringify(
      {
        corpus: corpus.name,
        built_from: corpus.version(),
        // Searched as of this commit from then on (Corpus.gitPath): the set is made from the live files, which must be committed.
        ...(corpus.gitPath ? { commit: lastCommitOf(corpus.gitPath) } : {}),
        queries: set.length,
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`${corpus.name}: ${set.length} queries from ${corpus.version()}\n`);
}
