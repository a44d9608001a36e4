/**
 * --store and --schema, the same on every CLI: a shared PostgreSQL store
 * instead of the embedded index (or OCVECTOR_STORE, OCVECTOR_SCHEMA). The
 * password belongs in PGPASSWORD or ~/.pgpass, which the client reads,
 * rather than in the URL, where `ps` shows it.
 */
import { type Command, Option } from 'commander';
import { badSchemaName, DEFAULT_POSTGRES_SCHEMA, namesStore, type PostgresChoice } from '../store/open.js';
import type { Environment } from './environment.js';
import { UsageError } from './exit.js';

export interface StoreCliOptions {
  store?: string;
  schema?: string;
  db?: string;
}

export function addStoreOptions(command: Command): Command {
  return command
    .option(
      '--store <url>',
      'a shared PostgreSQL store (with pgvector) instead of the embedded index: postgres://user@host:5432/db (default: OCVECTOR_STORE; the password from PGPASSWORD or ~/.pgpass)',
    )
    .option(
      '--schema <name>',
      `the schema the shared store lives in (default: OCVECTOR_SCHEMA, else ${DEFAULT_POSTGRES_SCHEMA})`,
    );
}

/** The shared store the options (or the environment) name; undefined for the embedded index. */
export function storeChoice(options: StoreCliOptions, env: Environment): PostgresChoice | undefined {
  const url = options.store ?? (options.db === undefined ? env.store : undefined);
  const schema = options.schema ?? env.schema;
  if (url === undefined) {
    if (options.schema !== undefined)
      throw new UsageError('--schema names a schema of a shared store: give --store too');
    return undefined;
  }
  if (options.db !== undefined) throw new UsageError('--db and --store cannot be used together: choose one index');
  if (!namesStore(url))
    throw new UsageError(
      `--store takes a PostgreSQL URL (postgres://user@host:5432/db), not ${JSON.stringify(url.slice(0, 80))}`,
    );
  // Checked here, before any command starts: a server (oc-vector-mcp) opens the store only at its first call.
  const badSchema = schema === undefined ? undefined : badSchemaName(schema);
  if (badSchema !== undefined)
    throw new UsageError(`${options.schema !== undefined ? '--schema' : 'OCVECTOR_SCHEMA'}: ${badSchema}`);
  return { url, ...(schema !== undefined ? { schema } : {}) };
}

/** --device: where the embedded index's vector searches run. */
const DEVICE_CHOICES = ['cpu', 'gpu', 'auto'] as const;
export type DeviceChoice = (typeof DEVICE_CHOICES)[number];

export function addDeviceOption(command: Command): Command {
  return command.addOption(
    new Option(
      '--device <where>',
      'where vector searches run: cpu, gpu (a copy of the index on the GPU; fails without one) or auto (the GPU when FAISS was built for one and a device is there); a copy is made once the index holds 10,000 vectors, below that the CPU is as fast (docs/performance.md)',
    ).choices([...DEVICE_CHOICES]),
  );
}

/** The vector index options --device asks for (the embedded index only: a shared store searches in PostgreSQL). */
export function deviceOptions(
  device: DeviceChoice | undefined,
  store: PostgresChoice | undefined,
): { vectorIndex?: { device: DeviceChoice } } {
  if (device === undefined) return {};
  if (store) throw new UsageError('--device places the embedded index on a GPU; a shared store searches in PostgreSQL');
  return { vectorIndex: { device } };
}
