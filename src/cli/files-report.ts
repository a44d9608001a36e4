/**
 * `oc-vector-search --files`: the files an issue points at, as people read
 * them: rank, path (openable as printed), score, then the evidence, one
 * kind a line.
 */
import { relative, sep } from 'node:path';
import type { FileResult, FileSearchResponse } from '../search/localise/file-search.js';
import type { Style } from './terminal.js';

export function renderFiles(response: FileSearchResponse, style: Style, showRepo: boolean): string {
  const out: string[] = [];
  response.files.forEach((file, i) => {
    const where = showRepo ? `${style.dim(`${file.repo}:`)}${displayPath(file)}` : displayPath(file);
    out.push(`${style.dim(`${String(i + 1).padStart(2)}.`)} ${style.bold(where)}  ${style.dim(file.score.toFixed(3))}`);
    for (const { kind, said } of file.evidence) out.push(`      ${style.dim(`${kind}:`)} ${said.join('; ')}`);
  });
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}

/** Relative to the current directory when inside it, so the path can be opened as printed. */
function displayPath(file: FileResult): string {
  const fromHere = relative(process.cwd(), file.absolutePath);
  return fromHere.startsWith(`..${sep}`) || fromHere === '..' ? file.absolutePath : fromHere.split(sep).join('/');
}
