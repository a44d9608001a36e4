/** Where a store is, for messages: a database URL with its secret replaced. */

/** What stands in a URL's place of a secret. */
const HIDDEN = '*'.repeat(3);

export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = HIDDEN;
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@/]*@/, `//$1:${HIDDEN}@`);
  }
}
