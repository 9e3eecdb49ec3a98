/**
 * The contact form 'Escríbenos' (SPEC §2, §3, §5): a fixed recipient, subject and message (both
 * required), and the hidden honeypot `botcheck` that people never tick. Shared by the modal and
 * the endpoint.
 */
import { z } from 'zod';

export const CONTACT_FIELDS = { subject: 'compose_subject', message: 'compose_message', honeypot: 'botcheck' } as const;

/** What an empty field is told, by the server and, before sending, by the form itself. */
export const CONTACT_MISSING = { subject: 'Escriba el asunto.', message: 'Escriba el mensaje.' } as const;

export const contactSchema = z.object({
  compose_subject: z
    .string({ error: CONTACT_MISSING.subject })
    .trim()
    .min(1, CONTACT_MISSING.subject)
    .max(200, 'El asunto no puede pasar de 200 caracteres.'),
  compose_message: z
    .string({ error: CONTACT_MISSING.message })
    .trim()
    .min(1, CONTACT_MISSING.message)
    .max(5000, 'El mensaje no puede pasar de 5000 caracteres.'),
  /** Any value at all means a robot filled the hidden box. */
  botcheck: z.union([z.string(), z.boolean()]).optional(),
});
export type ContactInput = z.infer<typeof contactSchema>;

/** A ticked honeypot: the message is accepted silently and dropped. */
export function isBot(input: ContactInput): boolean {
  return input.botcheck !== undefined && input.botcheck !== false && input.botcheck !== '';
}
