import { isPeriscopeError } from '../../../errors.ts';
import { GatewayError } from '../http-io.ts';

// What the admin routes share in reading their input: a JSON object body, whole numbers, and the key
// and credit operations' INVALID_INPUT as the client's mistake.

export function asObject(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new GatewayError(400, 'BAD_REQUEST', 'the body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

export function optionalInteger(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new GatewayError(400, 'BAD_REQUEST', `${name} must be a whole number`);
  }
  return value;
}

/** INVALID_INPUT from the key and credit operations is the client's mistake: 400 (or `status`). */
export async function invalidInputAs400<T>(run: () => Promise<T>, status = 400): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isPeriscopeError(error) && error.code === 'INVALID_INPUT') {
      throw new GatewayError(status, status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST', error.message);
    }
    throw error;
  }
}
