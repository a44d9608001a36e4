/**
 * The matches of a regex that starts with a lazy run of one character class
 * (gitleaks' semi-generic `[\w.-]{0,50}?identifier…`, redact.ts's
 * `\b[\w$.-]*?password…`), found without trying that run at every position
 * of the text, which costs a try per character of the run at each: the rest
 * of the regex (its core) is searched instead, and the whole regex is run,
 * anchored, where a match of the core says one starts.
 *
 * Where the core matches at `at`, the leftmost match of the regex that can
 * use it starts at the first allowed position (after a word boundary, where
 * the regex asks for one) from the furthest of: `reach` characters back, the
 * start of the run of the class that ends at `at`, and the end of the
 * previous match; it does start there (its lazy run can stretch to `at`).
 * Those starts only grow with `at`, so the first match found is the
 * leftmost, as a scan of the text finds it: the matches are the same.
 */

export interface LazyPrefixRegex {
  /** The regex after its lazy run, global (`g`). */
  core: RegExp;
  /** The whole regex, sticky (`y`). */
  anchored: RegExp;
  /** Whether a character code is of the run's class. */
  inRun: (code: number) => boolean;
  /** The run's longest (`{0,N}?`); Infinity for `*?`. */
  reach: number;
  /** Whether the regex starts with `\b`, before its run. */
  wordBoundary: boolean;
}

function isWord(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95;
}

/** Whether `code` is a character of `[\w.-]`. */
export function wordOrDotOrDash(code: number): boolean {
  return isWord(code) || code === 46 || code === 45;
}

/** Whether there is a word boundary before `at` in `text` (as `\b` without the `u` flag). */
function boundaryAt(text: string, at: number): boolean {
  const before = at > 0 && isWord(text.charCodeAt(at - 1));
  const after = at < text.length && isWord(text.charCodeAt(at));
  return before !== after;
}

/** Every match of the regex in `text`, in order, as `regex.exec` run over the whole text finds them. */
export function* lazyPrefixMatches(regex: LazyPrefixRegex, text: string): Generator<RegExpExecArray> {
  const { core, anchored, inRun, reach, wordBoundary } = regex;
  let from = 0;
  core.lastIndex = 0;
  for (let found = core.exec(text); found; found = core.exec(text)) {
    const at = found.index;
    core.lastIndex = at + 1;
    if (at < from) continue;
    let start = at;
    while (start > from && at - start < reach && inRun(text.charCodeAt(start - 1))) start--;
    if (wordBoundary) while (start <= at && !boundaryAt(text, start)) start++;
    if (start > at) continue;
    anchored.lastIndex = start;
    const match = anchored.exec(text);
    if (!match) continue; // not expected: the core matched within reach
    yield match;
    from = match[0].length === 0 ? start + 1 : start + match[0].length;
    core.lastIndex = Math.max(core.lastIndex, from);
  }
}

/** Every match of a global regex in the text, as a scan of the whole text finds them (an empty match steps on). */
export function* everyMatch(regex: RegExp, text: string): Generator<RegExpExecArray> {
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match; match = regex.exec(text)) {
    if (match[0].length === 0) regex.lastIndex++;
    yield match;
  }
}

/** `text` with each match (in order, not overlapping) replaced by what `replace` makes of it. */
export function replaceMatches(
  text: string,
  matches: Iterable<RegExpExecArray>,
  replace: (match: RegExpExecArray) => string,
): string {
  let out = '';
  let at = 0;
  let replaced = false;
  for (const match of matches) {
    out += text.slice(at, match.index) + replace(match);
    at = match.index + match[0].length;
    replaced = true;
  }
  return replaced ? out + text.slice(at) : text;
}
