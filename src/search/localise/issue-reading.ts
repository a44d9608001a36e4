/**
 * An issue read for what each part says about where the change goes: a bug
 * report or a feature request is prose around structure — traceback frames
 * (a file and a function the failure passed through), file paths (in prose,
 * code or a link to the repository), dotted names (`sklearn.linear_model.
 * LogisticRegression`, `com.fasterxml.jackson.core.JsonParser`), names in
 * code blocks and backticks, and the error it printed. Each kind is weighed
 * by what it is (search/localise/file-ranking.ts); the whole text is read,
 * however long: nothing is cut.
 */
import { isIdentifierLike } from '../query.js';

/** A file a traceback passes through, as written (forward slashes), and the function there when the frame says. */
export interface TraceFrame {
  path: string;
  name?: string;
  /** How near the failure, 0 to 1 (1: the innermost frame). Python writes it last, the other languages first. */
  depth: number;
}

export interface IssueReading {
  /** The whole text, trimmed. */
  text: string;
  /** Its first line: an issue's title. */
  title: string;
  /** The frames of its tracebacks, in the order written (Python's innermost last). */
  frames: TraceFrame[];
  /** File paths named elsewhere: in prose, code or a link into the repository (forward slashes, no `./`). */
  paths: string[];
  /** Dotted names of packages, modules or classes (`django.db.models.Q`, `jackson.core.JsonParser`). */
  dotted: string[];
  /**
   * The names it spells as code, each with how surely it names code: 1 in a
   * code block, backticks or a frame; NAME_IN_PROSE for a code-like token in
   * prose. Case kept (`LogisticRegression`).
   */
  names: Map<string, number>;
  /** The messages of the errors it shows (`ValueError: Input contains NaN` -> `Input contains NaN`). */
  errors: string[];
  /** The text less its code blocks: what is read as words. */
  prose: string;
}

/** How surely a code-like token of the prose names code, against 1 for one in code or backticks. */
export const NAME_IN_PROSE = 0.5;

/** Extensions of source and build files a path in an issue may end with. */
const PATH_EXTENSIONS =
  'py|pyi|pyx|pxd|js|jsx|mjs|cjs|ts|tsx|mts|cts|vue|svelte|go|rs|java|kt|kts|scala|groovy|c|h|cc|cpp|cxx|hpp|hh|hxx|ipp|inl|m|mm|rb|php|cs|swift|lua|jq|json|toml|yaml|yml|cfg|ini|md|rst|txt|cmake|sh';
const PATH = new RegExp(`(?:[\\w.@+-]+[\\\\/])*[\\w.@+-]+\\.(?:${PATH_EXTENSIONS})\\b`, 'g');
/** A link to a file of a repository: `github.com/owner/name/blob/<ref>/<path>`. */
const BLOB_LINK = /github\.com\/[\w.-]+\/[\w.-]+\/(?:blob|tree)\/[^/\s]+\/([^\s#?)>\]'"]+)/g;
/** Python: `File "/x/site-packages/pkg/mod.py", line 12, in func`. */
const PYTHON_FRAME = /File "([^"]+)", line \d+(?:, in ([\w<>.]+))?/g;
/** JavaScript: `at fn (/x/src/a.js:1:2)` or `at /x/src/a.js:1:2`. */
const JS_FRAME = /\bat (?:(?:async )?([\w$.<>[\]]+) \()?((?:[A-Za-z]:)?[\w./\\@+-]+\.[cm]?[jt]sx?):\d+(?::\d+)?\)?/g;
/** Java: `at com.pkg.Class.method(Class.java:12)`. */
const JAVA_FRAME = /\bat ([\w$]+(?:\.[\w$]+)+)\.([\w$<>]+)\(([\w$]+\.(?:java|kt|scala|groovy)):\d+\)/g;
/** A location `path.ext:line` (Go, Rust, C and C++ compilers, panics). */
const LOCATION = new RegExp(`((?:[\\w.@+-]+[\\\\/])*[\\w.@+-]+\\.(?:${PATH_EXTENSIONS})):\\d+`, 'g');
/** `SomeError: message`, `error: message`, `panicked at 'message'`. */
const ERROR_LINE =
  /(?:^|\s)(?:[\w.]*(?:Error|Exception|Warning|Failure)|error(?:\[\w+\])?|fatal|panic):\s+(.{8,300})$/gm;
const PANIC = /panicked at '([^']{8,300})'/g;
/** A fenced code block (``` or ~~~), or a block of lines indented by four spaces or a tab. */
const FENCED = /^[ \t]*(```|~~~)[^\n]*\n([\s\S]*?)^[ \t]*\1[ \t]*$/gm;
const INDENTED = /(?:^(?: {4}|\t)[^\n]*\n?)+/gm;
const BACKTICKED = /`([^`\n]{1,200})`/g;
/** A name in code: at least three characters (`os`, `i`, `x` name nothing a search can use). */
const CODE_NAME = /[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*/g;
const MIN_NAME_LENGTH = 3;
/** A dotted name of three segments or more (`django.utils.html`, `np.linalg.norm`): two are as often a method call. */
const DOTTED = /\b[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*){2,}\b/g;

/** Words of code that name no place in a project: keywords and builtins of the common languages. */
const NOT_NAMES = new Set(
  `and as assert async await break case catch class const continue def default del do elif else enum except export
  extends false final finally for from func function global if impl import in interface is lambda let match mod
  new nil none not null or package pass private protected pub public raise return self static struct super switch
  this throw throws true try type typeof use var void while with yield print len str int float bool dict list set
  tuple object string number boolean undefined console log require module exports std println fmt err error args
  kwargs cls main test tests foo bar baz file traceback line most recent call last`.split(/\s+/),
);

/** Reads an issue's text (trimmed; nothing is cut). */
export function readIssue(text: string): IssueReading {
  const whole = text.trim();
  const title = whole.split('\n', 1)[0]!.trim();
  const code: string[] = [];
  let prose = whole.replace(FENCED, (_, _fence, body: string) => {
    code.push(body);
    return '\n';
  });
  prose = prose.replace(INDENTED, (block) => {
    code.push(block);
    return '\n';
  });
  const names = new Map<string, number>();
  const name = (token: string, weight: number) => {
    const bare = token.replace(/\(\)$/, '');
    if (bare.length < MIN_NAME_LENGTH || NOT_NAMES.has(bare.toLowerCase())) return;
    names.set(bare, Math.max(names.get(bare) ?? 0, weight));
  };
  for (const block of code) for (const token of block.match(CODE_NAME) ?? []) if (looksNamed(token)) name(token, 1);
  for (const [, quoted] of prose.matchAll(BACKTICKED))
    for (const token of quoted!.match(CODE_NAME) ?? [])
      if (looksNamed(token) || /^[a-z_]\w+$/.test(token)) name(token, 1);
  for (const token of prose.split(/[\s,;:!?"'()[\]{}<>]+/)) {
    const bare = token.replace(/^[`*]+|[`*.]+$/g, '');
    if (isIdentifierLike(bare)) name(bare, NAME_IN_PROSE);
  }

  const frames = tracebackFrames(whole);
  for (const frame of frames) if (frame.name) name(frame.name, 1);
  // A traceback's paths are frames, not paths named besides (however the path is cut).
  const framed = frames.map((frame) => frame.path.replace(/^\/+/, ''));
  const paths = unique(
    [...[...whole.matchAll(BLOB_LINK)].map((m) => m[1]!), ...(whole.match(PATH) ?? [])]
      .map(normalizePath)
      .filter((path) => path.includes('/') || !/^\d/.test(path))
      .filter((path) => !framed.some((frame) => frame.endsWith(path)) && !isUrlHost(path)),
  );
  const dotted = unique(
    (whole.match(DOTTED) ?? []).filter(
      (token) => !PATH_END.test(token) && !/^\d|\.\d/.test(token) && !isUrlHost(token),
    ),
  );
  // A dotted name's package segments are evidence of its module (file-evidence.ts), not names: its last segment and its types are.
  for (const token of dotted)
    token.split('.').forEach((segment, i, all) => {
      if (i === all.length - 1 || /^[A-Z]/.test(segment)) name(segment, 1);
    });
  const errors = unique([
    ...[...whole.matchAll(ERROR_LINE)].map((m) => m[1]!.trim()),
    ...[...whole.matchAll(PANIC)].map((m) => m[1]!.trim()),
  ]);
  return { text: whole, title, frames, paths, dotted, names, errors, prose: prose.trim() };
}

const PATH_END = new RegExp(`\\.(?:${PATH_EXTENSIONS})$`);

/** The frames of the tracebacks a text shows, in the order written. */
export function tracebackFrames(text: string): TraceFrame[] {
  type Found = { at: number; end: number; innermostLast: boolean; frame: Omit<TraceFrame, 'depth'> };
  const frames: Found[] = [];
  const add = (m: RegExpMatchArray, innermostLast: boolean, frame: Found['frame']) =>
    frames.push({ at: m.index!, end: m.index! + m[0].length, innermostLast, frame });
  for (const m of text.matchAll(PYTHON_FRAME))
    add(m, true, { path: normalizePath(m[1]!), ...(m[2] ? { name: m[2] } : {}) });
  for (const m of text.matchAll(JS_FRAME)) {
    const name = m[1]?.split('.').at(-1);
    add(m, false, { path: normalizePath(m[2]!), ...(name ? { name } : {}) });
  }
  for (const m of text.matchAll(JAVA_FRAME)) {
    // The class's package is its folder: `com.pkg.Outer$Inner.run(Outer.java:1)` -> com/pkg/Outer.java.
    const qualified = m[1]!.split('$')[0]!.split('.');
    add(m, false, { path: [...qualified.slice(0, -1), m[3]!].join('/'), name: m[2]!.replace(/[<>]/g, '') });
  }
  // A bare location inside a frame already read is that frame.
  const spans = frames.map(({ at, end }) => [at, end] as const);
  for (const m of text.matchAll(LOCATION))
    if (!spans.some(([at, end]) => m.index! >= at && m.index! < end)) add(m, false, { path: normalizePath(m[1]!) });
  frames.sort((a, b) => a.at - b.at);
  // Depth by the order each kind writes its frames in, counted within that kind.
  const total = { last: frames.filter((found) => found.innermostLast).length, first: 0 };
  total.first = frames.length - total.last;
  const seen = { last: 0, first: 0 };
  return frames.map(({ innermostLast, frame }) => {
    const kind = innermostLast ? 'last' : 'first';
    const position = innermostLast ? ++seen.last : total.first - seen.first++;
    return { ...frame, depth: position / total[kind] };
  });
}

/** A path as the index writes it: forward slashes, no `./`, no diff prefix (`a/`, `b/`). */
export function normalizePath(path: string): string {
  return path
    .replace(/\\/g, '/')
    .replace(/^(?:\.\/)+/, '')
    .replace(/^[ab]\/(?=[\w.-]+\/)/, '');
}

/** Looks like a name in code: code-like (a case change, an underscore, a dot), or a capitalised word (a type). */
function looksNamed(token: string): boolean {
  return isIdentifierLike(token) || /^[A-Z][a-z0-9]+[A-Za-z0-9]*$/.test(token);
}

/** `www.example.com`, `github.com/…`: a host, not a path or a module. */
function isUrlHost(token: string): boolean {
  return /^(?:www\.|[\w-]+\.(?:com|org|net|io|dev|edu)(?:\/|$))/.test(token);
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list)];
}
