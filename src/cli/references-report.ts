/**
 * References as people read them (oc-vector-search --refs, ocvector refs):
 * the definitions, then each file with its lines — line number, call or
 * definition, the line's text, and the element around it.
 */
import type { ReferencesResponse } from '../search/references.js';
import { formatDuration, type Style } from './terminal.js';

export function renderReferences(response: ReferencesResponse, style: Style): string {
  const out: string[] = [];
  for (const file of response.files) {
    const notes = [
      file.defines ? style.dim(`defines ${response.name}`) : '',
      file.stale ? style.warn('[stale: changed since indexed]') : '',
      file.problem ? style.warn(`[${file.problem}]`) : '',
    ].filter(Boolean);
    out.push(`${style.path(file.path)}${notes.length > 0 ? `  ${notes.join(' ')}` : ''}`);
    const width = Math.max(...file.sites.map((site) => String(site.line).length));
    for (const site of file.sites) {
      const mark = site.definition ? 'def ' : site.call ? 'call' : '    ';
      const where = site.element ? style.dim(`  (${site.element.type} ${site.element.name})`) : '';
      out.push(
        `  ${style.line(String(site.line).padStart(width))} ${style.bold(mark)} ${(site.text ?? '').trim()}${where}`,
      );
    }
  }
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}

/** The one-line summary for stderr. */
export function referencesSummary(response: ReferencesResponse): string {
  const shown = response.files.reduce((sum, file) => sum + file.sites.length, 0);
  const definitions = response.definitions.length;
  const base =
    response.total === 0
      ? `no occurrences of ${response.name}`
      : `${response.total} line${response.total === 1 ? '' : 's'} in ${response.totalFiles} file${response.totalFiles === 1 ? '' : 's'}`;
  const truncated = response.truncated ? `, ${shown} shown (raise --limit)` : '';
  return `${base}${truncated}, ${definitions} definition${definitions === 1 ? '' : 's'}, in ${formatDuration(response.timings.totalMs)}`;
}
