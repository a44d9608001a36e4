/**
 * A git repository made for a test, whose commits get one author and date each, one second
 * apart, so that the history's order is fixed (the commit sets' builder, the localisation
 * harness's work tree).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface CommitOptions {
  /** `Name <email>` (default: Ann Author). */
  author?: string;
  /** Symbolic links to add: path -> target. */
  links?: Record<string, string>;
}

/** A new repository in a temporary directory, or in `root` (which must not exist yet, its parent must). */
export function historyRepo(root = mkdtempSync(join(tmpdir(), 'ocvector-commits-'))) {
  mkdirSync(root, { recursive: true });
  let second = 0;
  const git = (args: string[], author = 'Ann Author <ann@example.com>') => {
    const date = `2024-01-01T00:00:${String(second).padStart(2, '0')}Z`;
    const [, name, email] = /^(.*) <(.*)>$/.exec(author)!;
    return execFileSync('git', ['-C', root, '-c', 'commit.gpgsign=false', ...args], {
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: name,
        GIT_AUTHOR_EMAIL: email,
        GIT_COMMITTER_NAME: name,
        GIT_COMMITTER_EMAIL: email,
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_DATE: date,
      },
    });
  };
  /** Writes (or, for null, removes) the files, adds the links, commits; the commit's id. */
  const commit = (subject: string, files: Record<string, string | null>, options: CommitOptions = {}) => {
    second++;
    for (const [path, content] of Object.entries(files)) {
      if (content === null) git(['rm', '-q', path]);
      else {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), content);
        git(['add', path]);
      }
    }
    for (const [path, target] of Object.entries(options.links ?? {})) {
      symlinkSync(target, join(root, path));
      git(['add', path]);
    }
    git(['commit', '-q', '-m', subject], options.author);
    return git(['rev-parse', 'HEAD']).trim();
  };
  git(['init', '-q', '-b', 'main']);
  return {
    root,
    git,
    commit,
    gitDir: join(root, '.git'),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
