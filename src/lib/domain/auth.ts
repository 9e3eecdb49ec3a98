/**
 * What sign-in and password-reset requests must look like (SPEC §5), with the spec's messages.
 * Shared by the forms in the browser and the endpoints on the server.
 */
import { z } from 'zod';
import { PROVIDERS } from './user.ts';

const required = (message: string) => z.string({ error: message }).trim().min(1, message);

/** SPEC §5 'Login form': account and provider 3 to 50 characters; the messages are the spec's. */
export const loginFieldsSchema = z.object({
  account: required('Email is required').min(3, 'Minimum 3 symbols').max(50, 'Maximum 50 symbols'),
  provider: required('Password is required').min(3, 'Minimum 3 symbols').max(50, 'Maximum 50 symbols'),
});

/** POST /auth/login: an EIP-4361 message, its signature, and which kind of wallet signed it. */
export const loginRequestSchema = z.object({
  message: required('message is required').max(4000, 'message is too long'),
  signature: required('signature is required').regex(/^0x[0-9a-fA-F]{130}$/, 'signature is not valid'),
  provider: z.enum(PROVIDERS, { error: 'Password is required' }),
});

/** POST /auth/register: the same proof, plus the names the original form asked for. */
export const registerRequestSchema = loginRequestSchema.extend({
  firstname: z.string().trim().max(50, 'Maximum 50 symbols').optional(),
  lastname: z.string().trim().max(50, 'Maximum 50 symbols').optional(),
});

/** SPEC §5 'Password-reset email'. */
export const resetEmailSchema = z.object({
  email: required('Email is required')
    .min(3, 'Minimum 3 symbols')
    .max(50, 'Maximum 50 symbols')
    .pipe(z.email('Wrong email format')),
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
