/**
 * The documentation's links hold: every relative link of the README and of
 * docs/ (history/ included) reaches a file that exists and, for a Markdown
 * page, a heading that exists; and every docs page a source comment cites is
 * there. Pages move (history went to docs/history/) and headings are
 * renamed: a reader who follows a link should land somewhere.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path, keep);
    return keep(entry.name) ? [path] : [];
  });
}

const PAGES = [join(ROOT, 'README.md'), ...filesUnder(join(ROOT, 'docs'), (name) => name.endsWith('.md'))];

/** Text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '``');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of markdown.replace(/^```[\s\S]*?^```/gm, '').split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** `[text](target)` links whose target is a path in this repository (not a URL, not mail). */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** What is wrong with one link of a page, or undefined when it holds. */
function brokenLink(page: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#', 2);
  const file = path === '' ? page : resolve(dirname(page), decodeURIComponent(path));
  if (!existsSync(file)) return `${target}: no such file`;
  if (anchor === undefined || statSync(file).isDirectory() || !file.endsWith('.md')) return undefined;
  if (!anchorsOf(readFileSync(file, 'utf8')).has(anchor))
    return `${target}: no heading #${anchor} in ${relative(ROOT, file)}`;
  return undefined;
}

describe('documentation links', () => {
  it('finds the headings GitHub makes anchors of', () => {
    const anchors = anchorsOf(
      '# Performance\n## store/: two stores behind one seam\n### `npm run` and more\n## Notes\n## Notes\n',
    );
    expect([...anchors]).toEqual([
      'performance',
      'store-two-stores-behind-one-seam',
      'npm-run-and-more',
      'notes',
      'notes-1',
    ]);
  });

  it('reaches a file and a heading from every relative link of the README and docs/', () => {
    const broken = PAGES.flatMap((page) =>
      relativeLinks(readFileSync(page, 'utf8'))
        .map((target) => brokenLink(page, target))
        .filter((problem): problem is string => problem !== undefined)
        .map((problem) => `${relative(ROOT, page)}: ${problem}`),
    );
    expect(broken).toEqual([]);
  });

  it('has every docs page that a source comment cites', () => {
    const cited = filesUnder(join(ROOT, 'src'), (name) => name.endsWith('.ts')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\bdocs\/([\w/-]+\.md)/g)].map((match) => ({
        file: relative(ROOT, file),
        page: `docs/${match[1]}`,
      })),
    );
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.filter(({ page }) => !existsSync(join(ROOT, page)))).toEqual([]);
  });
});
