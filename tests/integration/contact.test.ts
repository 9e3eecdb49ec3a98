/**
 * Contact messages on a real database: kept for the moderators, forwarded to a form-mailer (a
 * real HTTP server here) without its key ever leaving the server, honeypot hits dropped, limits.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toUser } from '../../src/lib/domain/user.ts';
import { sendContactMessage } from '../../src/lib/server/contact/index.ts';
import { inbox } from '../../src/lib/server/queries/inbox.ts';
import type { Engine } from '../../src/lib/server/db/index.ts';
import { toResponse } from '../../src/lib/server/http/errors.ts';
import { createTestDatabase, testEngines, type TestDatabase } from '../helpers/database.ts';
import { ALICE } from '../helpers/siwe.ts';

const failure = async (promise: Promise<unknown>) => {
  const response = toResponse(await promise.then(() => null, (error: unknown) => error));
  return { status: response.status, message: ((await response.json()) as { message: string }).message };
};

describe.each(testEngines())('contact messages on %s', (engine: Engine) => {
  let database: TestDatabase;
  let mailer: http.Server;
  let received: Array<Record<string, unknown>> = [];
  let mailerUrl = '';

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    mailer = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push(JSON.parse(body) as Record<string, unknown>);
        response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"success":true}');
      });
    });
    await new Promise<void>((resolve) => mailer.listen(0, '127.0.0.1', resolve));
    mailerUrl = `http://127.0.0.1:${(mailer.address() as AddressInfo).port}/submit`;
  });
  afterAll(async () => {
    await database?.destroy();
    await new Promise((resolve) => mailer?.close(resolve));
  });

  it('keeps a message for the moderators and forwards it to the form-mailer', async () => {
    received = [];
    const context = {
      db: database.db,
      config: { formMailer: { endpoint: mailerUrl, accessKey: 'clave-secreta' } },
      user: toUser(ALICE.address, 'metamask'),
      clientAddress: '10.0.0.1',
    };
    const answer = await sendContactMessage(context, { compose_subject: 'Falta un presupuesto', compose_message: 'El de 2019, por favor.' });
    expect(answer.message).toBe('Mensaje enviado. Gracias por escribirnos.');
    const { items } = await inbox(database.db, 1);
    expect(items[0]).toMatchObject({ subject: 'Falta un presupuesto', message: 'El de 2019, por favor.', walletAddress: ALICE.address.toLowerCase(), forwarded: true });
    expect(received).toEqual([
      expect.objectContaining({ access_key: 'clave-secreta', subject: '[Archivo Abierto] Falta un presupuesto', message: 'El de 2019, por favor.' }),
    ]);
  });

  it('keeps the message when the form-mailer is down', async () => {
    const context = { db: database.db, config: { formMailer: { endpoint: 'http://127.0.0.1:9/submit', accessKey: 'x' } }, user: null, clientAddress: '10.0.0.2' };
    await sendContactMessage(context, { compose_subject: 'Sin correo', compose_message: 'Igual debe quedar guardado.' });
    const { items } = await inbox(database.db, 1);
    expect(items[0]).toMatchObject({ subject: 'Sin correo', walletAddress: null, forwarded: false });
  });

  it('accepts a filled honeypot with the same answer, and keeps nothing', async () => {
    received = [];
    const before = (await inbox(database.db, 1)).total;
    const context = { db: database.db, config: { formMailer: { endpoint: mailerUrl, accessKey: 'k' } }, user: null, clientAddress: '10.0.0.3' };
    const answer = await sendContactMessage(context, { compose_subject: 'Oferta', compose_message: 'Compre ya', botcheck: 'on' });
    expect(answer.message).toBe('Mensaje enviado. Gracias por escribirnos.');
    expect((await inbox(database.db, 1)).total).toBe(before);
    expect(received).toEqual([]);
  });

  it('requires subject and message, and limits how often one address writes', async () => {
    const context = { db: database.db, config: { formMailer: undefined }, user: null, clientAddress: '10.0.0.4' };
    expect(await failure(sendContactMessage(context, { compose_subject: ' ', compose_message: 'x' }))).toEqual({ status: 400, message: 'Escriba el asunto.' });
    expect(await failure(sendContactMessage(context, { compose_subject: 'Asunto' }))).toEqual({ status: 400, message: 'Escriba el mensaje.' });
    expect((await failure(sendContactMessage(context, { compose_subject: 'A\u0000', compose_message: 'x' }))).status).toBe(400);
    for (let i = 0; i < 2; i += 1) await sendContactMessage(context, { compose_subject: `n.º ${i}`, compose_message: 'hola' });
    expect((await failure(sendContactMessage(context, { compose_subject: 'otro', compose_message: 'hola' }))).status).toBe(429);
  });
});
