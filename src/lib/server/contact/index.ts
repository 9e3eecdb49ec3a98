/**
 * Contact messages (issue #9): kept in the archive's own database, where moderators read them
 * (`queries/inbox.ts`), and forwarded to a form-mailer service when one is configured. A robot
 * that fills the honeypot gets the same answer as a person, and nothing is kept.
 */
import { sql } from 'drizzle-orm';
import { contactSchema, isBot } from '../../domain/contact.ts';
import type { User } from '../../domain/user.ts';
import { spend } from '../auth/rate-limit.ts';
import type { ArchiveConfig } from '../config.ts';
import type { Db } from '../db/index.ts';
import { contactMessages } from '../db/schema.ts';
import { parseInput, refuseUnfitInput } from '../http/input.ts';

export interface ContactContext {
  db: Db;
  config: Pick<ArchiveConfig, 'formMailer'>;
  user: User | null;
  clientAddress: string;
  fetch?: typeof fetch;
}

/** Messages a visitor may send: five every ten minutes from one address. */
const CONTACT_LIMIT = { max: 5, windowSeconds: 600 };

/** Checks, keeps and forwards one message; the same answer whether it was kept or dropped. */
export async function sendContactMessage(context: ContactContext, body: unknown): Promise<{ message: string }> {
  await spend(context.db, `contact:ip:${context.clientAddress}`, CONTACT_LIMIT);
  refuseUnfitInput(body);
  const input = parseInput(contactSchema, body, 'Mensaje no válido.');
  const answer = { message: 'Mensaje enviado. Gracias por escribirnos.' };
  if (isBot(input)) return answer;

  const [stored] = await context.db
    .insert(contactMessages)
    .values({ subject: input.compose_subject, message: input.compose_message, walletAddress: context.user?.account.toLowerCase() ?? null })
    .returning({ id: contactMessages.id });
  if (context.config.formMailer && stored) {
    const forwarded = await forward(context.config.formMailer, input, context.fetch ?? fetch);
    await context.db.update(contactMessages).set({ forwarded }).where(sql`${contactMessages.id} = ${stored.id}`);
  }
  return answer;
}

/** Hands the message to the form-mailer; a failure is logged, the message stays in the inbox. */
async function forward(
  mailer: NonNullable<ArchiveConfig['formMailer']>,
  input: { compose_subject: string; compose_message: string },
  fetchImpl: typeof fetch,
): Promise<boolean> {
  try {
    const response = await fetchImpl(mailer.endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({
        access_key: mailer.accessKey,
        subject: `[Archivo Abierto] ${input.compose_subject}`,
        message: input.compose_message,
        from_name: 'Archivo Abierto',
      }),
      signal: AbortSignal.timeout(5000),
    });
    if (!response.ok) console.error(`El servicio de correo rechazó un mensaje de contacto (HTTP ${response.status}).`);
    return response.ok;
  } catch (error) {
    console.error('No se pudo reenviar un mensaje de contacto al servicio de correo.', error);
    return false;
  }
}
