// Field schemas several resources share: query parameters as they arrive (text, possibly repeated)
// and required names. Not part of the package's exports: only the schemas built from them are.
import { z } from './zod.js';

/** A query parameter given once (twice, it arrives as an array): refused with `message` otherwise. */
export function single(message: string) {
  return z.custom<string>((value) => typeof value === 'string', { error: message });
}

/** A query parameter holding a whole number in [min, max]; anything else is refused with `message`. */
export function wholeNumber(min: number, max: number, message: string) {
  return z
    .custom<string>((value) => typeof value === 'string' && /^[0-9]{1,10}$/.test(value), { error: message })
    .transform(Number)
    .pipe(z.number().min(min, { error: message }).max(max, { error: message }))
    .meta({ type: 'integer', minimum: min, maximum: max });
}

/** A query parameter naming one of `values`; anything else is refused with `message`. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, message: string) {
  // Documented as the enum it is (a custom check has no JSON Schema of its own).
  return single(message)
    .pipe(z.enum(values, { error: message }))
    .meta({ type: 'string', enum: [...values] });
}

/** A name a person types: trimmed, required and at most 255 characters, refused in words otherwise. */
export const trimmedName = (what: string) => z.string().trim().min(1, { error: `${what} is required` }).max(255, { error: `${what} must be at most 255 characters` });
