/**
 * For a query of names only: the elements that hold one of its names
 * spelled as typed. The lexical index joins an identifier's parts into one
 * token (`starts_with` and `startsWith` are both `startswith`), so every
 * `line.startsWith(…)` holds the whole name of `starts_with` as far as BM25
 * can tell, and the one file with the SQL function came after them all.
 * The occurrences table (text/occurrences.ts, kept for `--refs`) has each
 * word as written, and its lines: the elements around those lines are the
 * ones that hold the name as typed. In a file that spells it only outside
 * its elements, a line counts for the element it documents: a name spelled
 * only in a doc comment's example (`* new PointAdapter()` above `class
 * TypeAdapter`) is a name users paste from the docs, and its file must
 * answer it.
 */
import type { OccurrenceReads } from '../../store/reads.js';
import { decodeSites, isOccurrenceWord } from '../../text/occurrences.js';
import { splitIdentifier } from '../../text/terms.js';
import { MAX_SPELLING_FILES } from './knobs.js';
import { symbolNames, type ParsedQuery } from '../query.js';

/**
 * The ids of the elements whose lines hold a name of the query as typed; undefined when the
 * query names nothing the index joins (one word: `search`), or a name is in more than
 * MAX_SPELLING_FILES files (the spelling then tells little, and reading its lines would cost).
 */
export async function elementsSpelledAsTyped(
  occurrences: OccurrenceReads,
  parsed: ParsedQuery,
  roots: readonly number[] | undefined,
): Promise<Set<number> | undefined> {
  if (!parsed.exactFirst) return undefined;
  // `$startingValue` as PHP writes it: the occurrences table holds the word without its sigil.
  const names = symbolNames(parsed)
    .map((name) => name.replace(/^\$+/, ''))
    .filter((name) => isOccurrenceWord(name) && splitIdentifier(name).length > 1);
  if (names.length === 0) return undefined;
  const perName = await Promise.all(names.map((name) => occurrences.files(name, roots)));
  if (perName.some((files) => files.length > MAX_SPELLING_FILES)) return undefined;
  const around = await Promise.all(
    perName.flat().map(async (file) => {
      const lines = decodeSites(file.lines).map((site) => site.line);
      const held = await occurrences.holding(file, lines);
      // Where some line lies inside an element, those elements hold the name. A file that spells
      // it only outside its elements (a doc comment's example above its class: top-level code
      // such as imports is a chunk element of its own): the elements those lines document.
      const inside = held.filter(
        (element, i) => element && element.startLine <= lines[i]! && lines[i]! <= element.endLine,
      );
      return inside.length > 0 ? inside : held;
    }),
  );
  return new Set(around.flat().flatMap((element) => (element ? [element.vectorId] : [])));
}
