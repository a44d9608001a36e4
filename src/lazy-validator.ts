/**
 * An ajv validator compiled on its first call. Loading ajv and compiling a
 * schema is a visible share of a CLI's start (docs/performance.md), though
 * most runs never validate a model's answer or a tool's arguments.
 */
import { createRequire } from 'node:module';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';

const require = createRequire(import.meta.url);

/** A type guard for `schema`; `errors` holds the last call's errors, as ajv's own validators do. */
export interface Validator<T> {
  (value: unknown): value is T;
  readonly errors: ErrorObject[] | null | undefined;
}

export function lazyValidator<T>(schema: object, options: Options = { allErrors: true }): Validator<T> {
  let compiled: ValidateFunction<T> | undefined;
  const compile = (): ValidateFunction<T> => {
    const { Ajv } = require('ajv') as typeof import('ajv');
    return new Ajv(options).compile<T>(schema);
  };
  const validate = (value: unknown): value is T => (compiled ??= compile())(value);
  return Object.defineProperty(validate, 'errors', { get: () => compiled?.errors }) as Validator<T>;
}
