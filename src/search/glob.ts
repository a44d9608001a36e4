/**
 * Globs over root-relative paths, matched in time linear in the path. A
 * glob used to become a RegExp, and stacked wildcards made it backtrack:
 * `************Q` took seconds a path, and the match ran on the event loop
 * (issue 38). Here a glob is a small automaton run over the path once:
 * each step follows a transition computed once and kept (a lazy DFA), so a
 * path costs one table read a character, and at worst (a transition not
 * seen yet) one pass over the pattern a character: never exponential.
 *
 * The meaning is the RegExp's: `**` crosses directories, `*` and `?` do
 * not, `[...]` is a class (`[!...]` or `[^...]` negated, `a-z` a range;
 * `[[]` is a literal `[`). A pattern without a slash matches the file name
 * anywhere (`*.py`), as in .gitignore. A class never closed (`[`) or with
 * nothing in it (`[]`, `[!]`) is refused with SearchError BAD_OPTION: it
 * used to be read as itself, and matched nothing without a word (issue 57).
 */
import { SearchError } from './errors.js';

/** A compiled glob: whether a root-relative path matches it. */
export interface GlobMatcher {
  test(path: string): boolean;
}

const SLASH = 0x2f;

/**
 * One step of a pattern. `one` is `?`; `segment` is `*` (any run within a
 * directory name); `any` is `**` not followed by a slash (anything); `dirs`
 * is `**\/` (nothing, or anything that ends with a slash).
 */
type Token =
  | { kind: 'char'; code: number }
  | { kind: 'one' }
  | { kind: 'class'; test: (code: number) => boolean }
  | { kind: 'segment' }
  | { kind: 'any' }
  | { kind: 'dirs' };

/** DFA states kept per glob; past this the cache starts afresh (memory stays bounded, time stays linear). */
const MAX_DFA_STATES = 2_000;
/** The DFA state of no NFA state: nothing after it can match. */
const DEAD = 0;

export function compileGlob(glob: string): GlobMatcher {
  // A pattern without a slash may start after any slash: `**/` before it says exactly that.
  const tokens = simplify([...(glob.includes('/') ? [] : [{ kind: 'dirs' } as const]), ...tokenize(glob)]);
  const dfa = new LazyDfa(tokens);
  // Most paths fail on their length or their last characters (`*.py`): checked before the walk.
  const minLength = tokens.filter((token) => !isLoop(token)).length;
  let suffix = '';
  for (let i = tokens.length - 1; i >= 0; i--) {
    const token = tokens[i]!;
    if (token.kind !== 'char') break;
    suffix = String.fromCharCode(token.code) + suffix;
  }
  return { test: (path) => path.length >= minLength && path.endsWith(suffix) && dfa.test(path) };
}

function tokenize(glob: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        i++;
        if (glob[i + 1] === '/') {
          i++;
          tokens.push({ kind: 'dirs' });
        } else tokens.push({ kind: 'any' });
      } else tokens.push({ kind: 'segment' });
    } else if (c === '?') tokens.push({ kind: 'one' });
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0)
        throw new SearchError(
          `the glob ${glob} has a [ that is never closed: end the class with ], or write [[] for a literal [`,
          'BAD_OPTION',
        );
      tokens.push({ kind: 'class', test: parseClass(glob.slice(i + 1, end)) });
      i = end;
    } else tokens.push({ kind: 'char', code: glob.charCodeAt(i) });
  }
  return tokens;
}

/** The body of `[...]`: a leading `!` or `^` negates; `a-z` is a range; anything else (a backslash too) is itself. */
function parseClass(body: string): (code: number) => boolean {
  const negated = body[0] === '!' || body[0] === '^';
  if (body.length === (negated ? 1 : 0))
    throw new SearchError(
      `the glob's class [${body}] is empty: put the characters to match between [ and ] (write [[] for a literal [)`,
      'BAD_OPTION',
    );
  const ranges: [number, number][] = [];
  for (let j = negated ? 1 : 0; j < body.length; j++) {
    const low = body.charCodeAt(j);
    if (body[j + 1] === '-' && j + 2 < body.length) {
      const high = body.charCodeAt(j + 2);
      if (high < low)
        throw new SearchError(
          `the glob's class [${body}] has a range out of order (${body[j]}-${body[j + 2]}): write the lower character first`,
          'BAD_OPTION',
        );
      ranges.push([low, high]);
      j += 2;
    } else ranges.push([low, low]);
  }
  return (code) => ranges.some(([low, high]) => code >= low && code <= high) !== negated;
}

/**
 * The same language with fewer loops, so that the automaton stays narrow:
 * `?` before `*` in a directory name (`*?*?` is `??*`), and a run of loops
 * with a `**` in it is that `**` alone; repeated `*` or `**\/` is one.
 */
function simplify(tokens: readonly Token[]): Token[] {
  const ordered: Token[] = [];
  for (let i = 0; i < tokens.length; ) {
    if (tokens[i]!.kind !== 'one' && tokens[i]!.kind !== 'segment') ordered.push(tokens[i++]!);
    else {
      let segment = false;
      for (; i < tokens.length && (tokens[i]!.kind === 'one' || tokens[i]!.kind === 'segment'); i++)
        if (tokens[i]!.kind === 'one') ordered.push(tokens[i]!);
        else segment = true;
      if (segment) ordered.push({ kind: 'segment' });
    }
  }
  const out: Token[] = [];
  for (let i = 0; i < ordered.length; ) {
    if (!isLoop(ordered[i]!)) {
      out.push(ordered[i++]!);
      continue;
    }
    const run: Token[] = [];
    for (; i < ordered.length && isLoop(ordered[i]!); i++)
      if (run.at(-1)?.kind !== ordered[i]!.kind) run.push(ordered[i]!);
    out.push(...(run.some((token) => token.kind === 'any') ? [{ kind: 'any' } as const] : run));
  }
  return out;
}

function isLoop(token: Token): boolean {
  return token.kind === 'segment' || token.kind === 'any' || token.kind === 'dirs';
}

/**
 * The glob's NFA, determinised as paths are read. NFA state 2p is "before
 * token p" (2m accepts); 2p+1 is "inside the `**\/` at p, its slash not yet
 * read". A DFA state is a set of NFA states, numbered; its transitions on
 * ASCII characters sit in one flat table (paths are mostly ASCII), the
 * others in a map.
 */
class LazyDfa implements GlobMatcher {
  readonly #tokens: readonly Token[];
  /** DFA state by its NFA states' key, and each one's NFA states and whether it accepts. */
  #ids = new Map<string, number>();
  #sets: number[][] = [];
  #accepts: boolean[] = [];
  /** The next state by `state * 128 + code` (-1: not computed yet). */
  #ascii = new Int32Array(0);
  #other = new Map<number, number>();
  #start = 0;

  constructor(tokens: readonly Token[]) {
    this.#tokens = tokens;
    this.#reset();
  }

  test(path: string): boolean {
    let state = this.#start;
    let ascii = this.#ascii;
    for (let i = 0; i < path.length; i++) {
      const code = path.charCodeAt(i);
      let next = code < 128 ? ascii[state * 128 + code]! : (this.#other.get(state * 0x10000 + code) ?? -1);
      if (next < 0) {
        next = this.#transition(state, code);
        ascii = this.#ascii; // grown, or started afresh
      }
      if (next === DEAD) return false;
      state = next;
    }
    return this.#accepts[state]!;
  }

  #transition(from: number, code: number): number {
    const next: number[] = [];
    for (const s of this.#sets[from]!) {
      const p = s >> 1;
      const token = this.#tokens[p];
      if (!token) continue; // the accepting state reads nothing more
      if (token.kind === 'dirs') {
        next.push(2 * p + 1);
        if (code === SLASH) next.push(2 * (p + 1));
      } else if (token.kind === 'segment') {
        if (code !== SLASH) next.push(s);
      } else if (token.kind === 'any') next.push(s);
      else if (token.kind === 'char' ? code === token.code : token.kind === 'one' ? code !== SLASH : token.test(code))
        next.push(2 * (p + 1));
    }
    if (this.#sets.length >= MAX_DFA_STATES) {
      this.#reset();
      return this.#intern(this.#closure(next)); // `from` is gone: nothing to remember the step in
    }
    const to = this.#intern(this.#closure(next));
    if (code < 128) this.#ascii[from * 128 + code] = to;
    else this.#other.set(from * 0x10000 + code, to);
    return to;
  }

  /** The states reachable without reading: past a loop that may match nothing. */
  #closure(states: readonly number[]): number[] {
    const seen = new Set<number>();
    const stack = [...states];
    while (stack.length > 0) {
      const s = stack.pop()!;
      if (seen.has(s)) continue;
      seen.add(s);
      const token = s % 2 === 0 ? this.#tokens[s >> 1] : undefined;
      if (token && isLoop(token)) stack.push(s + 2);
    }
    return [...seen].sort((a, b) => a - b);
  }

  #intern(nfa: number[]): number {
    const key = nfa.join(',');
    let id = this.#ids.get(key);
    if (id === undefined) {
      id = this.#sets.length;
      this.#ids.set(key, id);
      this.#sets.push(nfa);
      this.#accepts.push(nfa.includes(2 * this.#tokens.length));
      if (this.#ascii.length < (id + 1) * 128) {
        const grown = new Int32Array(Math.max(16, 2 * (id + 1)) * 128).fill(-1);
        grown.set(this.#ascii);
        this.#ascii = grown;
      }
    }
    return id;
  }

  /** Starts the DFA afresh: the dead state first (DEAD), then the start. */
  #reset(): void {
    this.#ids = new Map();
    this.#sets = [];
    this.#accepts = [];
    this.#ascii = new Int32Array(0);
    this.#other = new Map();
    this.#intern([]);
    this.#start = this.#intern(this.#closure([0]));
  }
}
