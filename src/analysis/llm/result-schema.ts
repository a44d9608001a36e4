/** The result schema, resources/ocvector/result-schema.json: what a model's answer must be (checked with ajv). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const RESOURCES_DIR = fileURLToPath(new URL('../../../resources/ocvector/', import.meta.url));

export const RESULT_SCHEMA: Record<string, unknown> = JSON.parse(
  readFileSync(`${RESOURCES_DIR}result-schema.json`, 'utf8'),
);
