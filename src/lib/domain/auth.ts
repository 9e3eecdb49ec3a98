/**
 * What sign-in and password-reset requests must look like (SPEC §5), as zod schemas for the
 * endpoints and the lazily loaded sign-in code; the rules and messages are `auth-fields.ts`'s.
 */
import { z } from 'zod';
import { checkResetEmail, FIELD_LENGTH, FIELD_MESSAGES, SIGNATURE_MESSAGES } from './auth-fields.ts';
import { PROVIDERS } from './user.ts';

const required = (message: string) => z.string({ error: message }).trim().min(1, message);
const loginField = (requiredMessage: string) =>
  required(requiredMessage).min(FIELD_LENGTH.min, FIELD_MESSAGES.tooShort).max(FIELD_LENGTH.max, FIELD_MESSAGES.tooLong);

/** SPEC §5 'Login form': account and provider 3 to 50 characters; the messages are the spec's. */
export const loginFieldsSchema = z.object({
  account: loginField(FIELD_MESSAGES.emailRequired),
  provider: loginField(FIELD_MESSAGES.passwordRequired),
});

/** POST /auth/login: an EIP-4361 message, its signature, and which kind of wallet signed it. */
export const loginRequestSchema = z.object({
  message: required('Falta el mensaje firmado (message).').max(4000, 'El mensaje firmado pasa de 4000 caracteres.'),
  signature: required(SIGNATURE_MESSAGES.required).regex(/^0x[0-9a-fA-F]{130}$/, SIGNATURE_MESSAGES.invalid),
  provider: z.enum(PROVIDERS, { error: 'Password is required' }),
});

/** POST /auth/register: the same proof, plus the names the original form asked for. */
export const registerRequestSchema = loginRequestSchema.extend({
  firstname: z.string().trim().max(FIELD_LENGTH.max, FIELD_MESSAGES.tooLong).optional(),
  lastname: z.string().trim().max(FIELD_LENGTH.max, FIELD_MESSAGES.tooLong).optional(),
});

/** SPEC §5 'Password-reset email': the rule the reset form runs in the browser, as a schema. */
export const resetEmailSchema = z.object({
  email: z.unknown().transform((value, context) => {
    const checked = checkResetEmail(value);
    if ('error' in checked) {
      context.addIssue({ code: 'custom', message: checked.error });
      return z.NEVER;
    }
    return checked.email;
  }),
});

/** The first message of each field, as forms show them. */
export function fieldErrors(error: z.ZodError): Array<{ field: string; message: string }> {
  const seen = new Set<string>();
  const issues: Array<{ field: string; message: string }> = [];
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? '');
    if (seen.has(field)) continue;
    seen.add(field);
    issues.push({ field, message: issue.message });
  }
  return issues;
}
