/**
 * A JSON text checked before JSON.parse reads it, for a file that holds
 * secrets (the tokens file): JSON.parse's message quotes the start of the
 * text, which can be a token, and it keeps the last of two equal keys
 * silently, so an entry whose "token" key is given twice (an edit that
 * pasted a new token above the old one) would serve a token nobody meant. This scanner says where a problem is (line and column) without
 * quoting the text, and finds a key given twice in one object. It walks
 * the text once, with an explicit stack (no recursion).
 */

export type JsonScanProblem =
  | { kind: 'syntax'; what: string; line: number; column: number }
  | { kind: 'duplicate'; key: string; path: (string | number)[]; line: number; column: number };

interface Frame {
  kind: 'object' | 'array';
  keys: Set<string>;
  /** The key (object) or index (array) of the value being read. */
  at: string | number;
}

type State = 'value' | 'value-or-end' | 'key' | 'key-or-end' | 'colon' | 'after';

// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON forbids raw control characters in a string, so the pattern names them
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LITERAL = /true|false|null/y;
const SPACE = /[ \t\n\r]*/y;

/** The first problem of the text (a syntax error, or a key twice in one object), or undefined when it is good JSON. */
export function scanJson(text: string): JsonScanProblem | undefined {
  const stack: Frame[] = [];
  let state: State = 'value';
  let i = 0;
  const where = (at: number) => {
    const before = text.slice(0, at).split('\n');
    return { line: before.length, column: before.at(-1)!.length + 1 };
  };
  const syntax = (what: string): JsonScanProblem => ({
    kind: 'syntax',
    what: i >= text.length ? 'the text ends too early' : what,
    ...where(i),
  });
  const match = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = i;
    const found = pattern.exec(text)?.[0];
    if (found !== undefined) i += found.length;
    return found;
  };
  for (;;) {
    match(SPACE);
    const top = stack.at(-1);
    if (state === 'after') {
      if (!top) return i === text.length ? undefined : syntax('more follows the value');
      const close = top.kind === 'object' ? '}' : ']';
      if (text[i] === close) {
        i++;
        stack.pop();
      } else if (text[i] === ',') {
        i++;
        if (top.kind === 'array') top.at = (top.at as number) + 1;
        state = top.kind === 'object' ? 'key' : 'value';
      } else return syntax(`expected ',' or '${close}'`);
      continue;
    }
    if (state === 'key' || state === 'key-or-end') {
      if (state === 'key-or-end' && text[i] === '}') {
        i++;
        stack.pop();
        state = 'after';
        continue;
      }
      const start = i;
      const quoted = text[i] === '"' ? match(STRING) : undefined;
      if (quoted === undefined) return syntax('expected a key in double quotes');
      const key = JSON.parse(quoted) as string;
      if (top!.keys.has(key)) {
        i = start;
        return { kind: 'duplicate', key, path: stack.slice(0, -1).map((frame) => frame.at), ...where(start) };
      }
      top!.keys.add(key);
      top!.at = key;
      state = 'colon';
      continue;
    }
    if (state === 'colon') {
      if (text[i] !== ':') return syntax("expected ':' after a key");
      i++;
      state = 'value';
      continue;
    }
    // A value.
    const char = text[i];
    if (char === '{' || char === '[') {
      i++;
      stack.push({ kind: char === '{' ? 'object' : 'array', keys: new Set(), at: 0 });
      state = char === '{' ? 'key-or-end' : 'value-or-end';
      continue;
    }
    if (char === ']' && state === 'value-or-end') {
      i++;
      stack.pop();
      state = 'after';
      continue;
    }
    const value =
      char === '"' ? match(STRING) : char === '-' || (char! >= '0' && char! <= '9') ? match(NUMBER) : match(LITERAL);
    if (value === undefined)
      return syntax(char === '"' ? 'a string is not closed, or holds a raw control character' : 'expected a value');
    state = 'after';
  }
}
