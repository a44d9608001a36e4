/**
 * A clone whose index (`<clone>/.ocvector`) was crafted to record a second repository, `etc`,
 * at a root outside the clone, holding a file with a marker no answer may show
 * (outside-roots*.test.ts).
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { prepared } from '../../src/store/embedded/sqlite.js';
import { indexBuiltin } from '../helpers/index-builtin.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';
import { searchFixtureFiles } from '../helpers/search-repo.js';

export const MARKER = 'root:x:0:0:OUTSIDE-MARKER-5f1d';
export const QUERY = 'how does authentication work';
/** A file an attacker would like printed, written as code so that it is indexed like any other. */
export const SECRET_FILE = 'passwd.ts';
export const SECRET = `// ${MARKER}\n// authentication credentials of every user\nexport function authenticate(user: string, password: string): string {\n  return '${MARKER}' + user + password;\n}\n`;

const cleanups: (() => void)[] = [];
/** Removes what the tests made: call after each. */
export function cleanUp(): void {
  for (const cleanup of cleanups.splice(0)) cleanup();
}

/** A temporary directory holding `files`, removed by cleanUp(). */
function made(files: Record<string, string>): TempRepo {
  const repo = tempRepo(files);
  cleanups.push(() => repo.cleanup());
  return repo;
}

export function clone(): TempRepo {
  return made(searchFixtureFiles());
}

/** A directory outside every clone holding the secret file: a stand-in for /etc or a home directory. */
export function outsideDirectory(): string {
  return made({ [SECRET_FILE]: SECRET }).root;
}

/**
 * The clone's own index, with a second repository `etc` whose recorded root is rewritten to
 * `root`: what a crafted `.ocvector` in a clone holds. It is indexed first from a directory
 * inside the clone holding the same file, which is then removed.
 */
export async function poisonedClone(root: (repo: TempRepo) => string): Promise<{ repo: TempRepo; indexDir: string }> {
  const repo = clone();
  const indexDir = join(repo.root, '.ocvector');
  await indexBuiltin(repo.root);
  const decoy = join(repo.root, 'decoy');
  mkdirSync(decoy);
  writeFileSync(join(decoy, SECRET_FILE), SECRET);
  await indexBuiltin(decoy, { root: decoy, indexDir, repo: 'etc' });
  rmSync(decoy, { recursive: true });
  const store = IndexStore.open(indexDir);
  try {
    prepared(store.database, "UPDATE roots SET path = ? WHERE name = 'etc'").run(root(repo));
  } finally {
    store.close();
  }
  return { repo, indexDir };
}

export const ROOTS: [string, (repo: TempRepo) => string][] = [
  ['an outside directory', () => outsideDirectory()],
  [
    'a sibling reached through ..',
    (repo) => {
      const sibling = outsideDirectory();
      return `${repo.root}/../${basename(sibling)}`;
    },
  ],
  [
    'a symbolic link in the clone that leads out',
    (repo) => {
      symlinkSync(outsideDirectory(), join(repo.root, 'etc-link'));
      return join(repo.root, 'etc-link');
    },
  ],
];
