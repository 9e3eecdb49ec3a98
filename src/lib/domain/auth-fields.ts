/**
 * SPEC §5's rules for the sign-in and password-reset fields, with the spec's messages, and no
 * dependency: the reset page's few lines of script run them without shipping zod to the browser,
 * and `auth.ts` builds the server's schemas from them, so both always agree.
 */

/** The spec's messages (SPEC §5), English as the original showed them. */
export const FIELD_MESSAGES = {
  emailRequired: 'Email is required',
  passwordRequired: 'Password is required',
  emailFormat: 'Wrong email format',
  tooShort: 'Minimum 3 symbols',
  tooLong: 'Maximum 50 symbols',
} as const;

/** SPEC §9: reset email 3 to 50 characters; login fields 3 to 50. */
export const FIELD_LENGTH = { min: 3, max: 50 } as const;

/**
 * zod's "practical" email pattern, the one `z.email()` used for this field before the rule moved
 * here: addresses the server accepted before are accepted still.
 */
export const EMAIL_PATTERN = /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

export type ResetEmailCheck = { email: string } | { error: string };

/**
 * The password-reset email (SPEC §5): the trimmed address, or the first message a form shows:
 * required, then length, then format. Anything but a string counts as missing.
 */
export function checkResetEmail(value: unknown): ResetEmailCheck {
  const email = typeof value === 'string' ? value.trim() : '';
  if (!email) return { error: FIELD_MESSAGES.emailRequired };
  if (email.length < FIELD_LENGTH.min) return { error: FIELD_MESSAGES.tooShort };
  if (email.length > FIELD_LENGTH.max) return { error: FIELD_MESSAGES.tooLong };
  if (!EMAIL_PATTERN.test(email)) return { error: FIELD_MESSAGES.emailFormat };
  return { email };
}

/** What is wrong with a wallet's signature (`personal_sign`: 65 bytes in hexadecimal), as the API says it. */
export const SIGNATURE_MESSAGES = {
  required: 'Falta la firma (signature).',
  invalid: 'La firma no es válida: se esperan 65 bytes en hexadecimal (0x y 130 cifras).',
} as const;
