/**
 * Keeps credentials out of what a tool hands to a model. Files that hold
 * secrets are never indexed (files/rules.ts), credentials in ordinary files
 * are redacted before anything is stored (files/redact.ts), and snippets,
 * which come from the disk, are redacted again here: a model's context may
 * be logged, sent to a hosted provider, or echoed back to a user.
 */
import { posix } from 'node:path';
import { isSecretName } from '../files/rules.js';

export { REDACTED, redactSecrets } from '../files/redact.js';

/** A path whose file name marks a credentials file (.env, id_rsa, *.pem...). */
export function isSecretPath(path: string): boolean {
  return isSecretName(posix.basename(path.replace(/\\/g, '/')));
}
