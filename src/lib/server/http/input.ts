/**
 * Input PostgreSQL cannot store: text with a NUL character (U+0000) makes any query that carries
 * it fail (22021), which would surface as a 500. Such input is refused at the door with a 400.
 */
import { ValidationError } from './errors.ts';

export const NUL_MESSAGE = 'El texto contiene un carácter nulo (NUL), que no se admite.';

/** Whether `value` (any JSON-like value) holds a NUL in a string or a key, however deep. */
export function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(containsNul);
  if (value && typeof value === 'object') {
    return Object.entries(value).some(([key, item]) => key.includes('\0') || containsNul(item));
  }
  return false;
}

/** Throws the 400 for input that holds a NUL. */
export function refuseNul(value: unknown): void {
  if (containsNul(value)) throw new ValidationError(NUL_MESSAGE);
}
