/** The FaissError a call rejects with (the test fails when it resolves, or rejects with something else). */
import { expect } from 'vitest';
import { FaissError } from '../../src/native/errors.js';

export async function rejection(call: () => Promise<unknown>): Promise<FaissError> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call should have failed').toBeInstanceOf(FaissError);
  return error as FaissError;
}
