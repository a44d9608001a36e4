/**
 * Elements of files that are not code: Markdown split at h1–h3 headers (the
 * header path kept), JSON/YAML/TOML as one document, any other text in
 * line-aligned overlapping windows.
 */
import { basename } from 'node:path';
import { fold, newElement } from './element.js';
import type { CodeElement, ElementType, Language, PropertyInfo } from './types.js';

const WINDOW_CHARS = 1_000;
const WINDOW_OVERLAP = 200;
const DESCRIPTION_CHARS = 300;

/** A piece of a text file: public, with no parameters, types or relations. */
function element(fields: {
  type: ElementType;
  name: string;
  parent: string;
  startLine: number;
  endLine: number;
  signature: string;
  description: string;
}): CodeElement {
  return newElement({ ...fields, access: 'public' });
}

function clip(text: string): string {
  return fold(text, DESCRIPTION_CHARS);
}

export function markdownSections(path: string, text: string): CodeElement[] {
  const lines = text.split('\n');
  const sections: CodeElement[] = [];
  const stack: { level: number; title: string }[] = [];
  let fenced = false;
  let current: { title: string; parent: string; level: number; start: number } | undefined;
  let preambleEnd = lines.length;

  const close = (end: number) => {
    if (!current) return;
    const body = lines.slice(current.start, end).join('\n');
    const firstParagraph = body.split(/\n\s*\n/).find((p) => p.trim() !== '' && !/^#{1,6}\s/.test(p.trim())) ?? '';
    sections.push(
      element({
        type: 'section',
        name: current.title,
        parent: current.parent,
        startLine: current.start + 1,
        endLine: Math.max(current.start + 1, trimEnd(lines, end)),
        signature: `${'#'.repeat(current.level)} ${current.title}`,
        description: clip(firstParagraph),
      }),
    );
  };

  lines.forEach((line, index) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const header = fenced ? null : /^(#{1,3})\s+(.+?)\s*#*\s*$/.exec(line);
    if (!header) return;
    if (!current && preambleEnd === lines.length) preambleEnd = index;
    close(index);
    const level = header[1]!.length;
    while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop();
    current = { title: header[2]!, parent: stack.map((s) => s.title).join(' > '), level, start: index };
    stack.push({ level, title: header[2]! });
  });
  close(lines.length);

  const preamble = lines.slice(0, preambleEnd).join('\n');
  if (preamble.trim() !== '') {
    sections.unshift(
      element({
        type: 'section',
        name: basename(path),
        parent: '',
        startLine: 1,
        endLine: trimEnd(lines, preambleEnd),
        signature: basename(path),
        description: clip(preamble),
      }),
    );
  }
  return sections;
}

/** A config file as one document; `keys` reads its top-level keys (its language record says how). */
export function configDocument(
  path: string,
  language: Language,
  text: string,
  keys: (text: string) => string[],
): CodeElement {
  const lines = text.split('\n');
  const document = element({
    type: 'document',
    name: basename(path),
    parent: '',
    startLine: 1,
    endLine: trimEnd(lines, lines.length),
    signature: `${language} ${basename(path)}`,
    description: '',
  });
  document.properties = keys(text)
    .slice(0, 100)
    .map((name): PropertyInfo => ({ name, type: '', accessors: [] }));
  return document;
}

export function textWindows(path: string, text: string): CodeElement[] {
  const lines = text.split('\n');
  const windows: CodeElement[] = [];
  let start = 0;
  while (start < lines.length) {
    let end = start;
    let chars = 0;
    while (end < lines.length && (chars < WINDOW_CHARS || end === start)) chars += lines[end++]!.length + 1;
    const body = lines.slice(start, end).join('\n');
    if (body.trim() !== '') {
      windows.push(
        element({
          type: 'window',
          name: `${basename(path)}:${start + 1}-${end}`,
          parent: '',
          startLine: start + 1,
          endLine: end,
          signature: '',
          description: clip(body),
        }),
      );
    }
    if (end >= lines.length) break;
    // Step back over about WINDOW_OVERLAP characters of whole lines.
    let next = end;
    let overlap = 0;
    while (next > start + 1 && overlap + lines[next - 1]!.length + 1 <= WINDOW_OVERLAP)
      overlap += lines[--next]!.length + 1;
    start = next;
  }
  return windows;
}

/** The last non-blank line before `end` (1-based). */
function trimEnd(lines: string[], end: number): number {
  let last = end;
  while (last > 1 && (lines[last - 1] ?? '').trim() === '') last--;
  return last;
}
