/** Which analyser a file goes to, by its name (and, for scripts, its first line). */
import { basename, extname } from 'node:path';
import type { Language } from './types.js';

const byExtension: Record<string, Language> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.py': 'python',
  '.pyi': 'python',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.json': 'json',
  '.jsonc': 'json',
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.toml': 'toml',
};

const CODE: ReadonlySet<Language> = new Set(['typescript', 'tsx', 'javascript', 'python']);

export function detectLanguage(path: string, firstLine = ''): Language {
  const fromExtension = byExtension[extname(path).toLowerCase()];
  if (fromExtension) return fromExtension;
  if (/^#!.*\b(node|deno|bun)\b/.test(firstLine)) return 'javascript';
  if (/^#!.*\bpython/.test(firstLine)) return 'python';
  if (basename(path) === 'Pipfile') return 'toml';
  return 'text';
}

export function isCodeLanguage(language: Language): boolean {
  return CODE.has(language);
}
