import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkResetEmail, EMAIL_PATTERN } from '../../src/lib/domain/auth-fields.ts';
import { fieldErrors, loginFieldsSchema, loginRequestSchema, resetEmailSchema } from '../../src/lib/domain/auth.ts';
import { userId } from '../../src/lib/domain/user.ts';

const messages = (result: { success: boolean; error?: import('zod').ZodError }) =>
  result.success ? [] : fieldErrors(result.error!).map((issue) => issue.message);

describe('the password-reset email (SPEC §5)', () => {
  it.each([
    [undefined, 'Email is required'],
    ['', 'Email is required'],
    ['ab', 'Minimum 3 symbols'],
    [`${'a'.repeat(45)}@x.com`, 'Maximum 50 symbols'],
    ['no-es-un-correo', 'Wrong email format'],
  ])('%j: %s', (email, message) => {
    expect(messages(resetEmailSchema.safeParse({ email }))).toEqual([message]);
  });

  it('accepts a real address', () => {
    expect(resetEmailSchema.safeParse({ email: 'datos@one.gob.do' }).success).toBe(true);
  });

  it('answers the same in the browser (no zod) as on the server', () => {
    for (const email of [undefined, null, 42, '', '   ', 'ab', ' ab ', `${'a'.repeat(45)}@x.com`, 'no-es-un-correo', 'a@b', 'datos@one.gob.do']) {
      const checked = checkResetEmail(email);
      expect(messages(resetEmailSchema.safeParse({ email }))).toEqual('error' in checked ? [checked.error] : []);
    }
    expect(messages(resetEmailSchema.safeParse({}))).toEqual(['Email is required']);
  });

  it('counts and sends the address without the spaces around it', () => {
    expect(checkResetEmail('  datos@one.gob.do ')).toEqual({ email: 'datos@one.gob.do' });
    expect(resetEmailSchema.parse({ email: '  datos@one.gob.do ' })).toEqual({ email: 'datos@one.gob.do' });
    expect(checkResetEmail(` ${'a'.repeat(43)}@x.com `)).toEqual({ email: `${'a'.repeat(43)}@x.com` });
  });

  it('keeps the format z.email() checked before the rule left zod', () => {
    const samples = [
      'datos@one.gob.do', 'nombre.apellido+filtro@ministerio.gob.do', "o'neil@ejemplo.org", 'a_b-c@sub.dominio.com',
      'no-es-un-correo', 'a@b', '.empieza@punto.com', 'dos..puntos@ejemplo.com', 'termina.@punto.com', 'sin@tld.',
      'espacio en@medio.com', 'acentuado@educación.do', 'x@-guion.com', 'x@ejemplo.c', 'arroba@@doble.com',
    ];
    for (const sample of samples) expect([sample, EMAIL_PATTERN.test(sample)]).toEqual([sample, z.email().safeParse(sample).success]);
  });
});

describe('the login form (SPEC §5)', () => {
  it('reuses the spec messages for account and provider', () => {
    expect(messages(loginFieldsSchema.safeParse({}))).toEqual(['Email is required', 'Password is required']);
    expect(messages(loginFieldsSchema.safeParse({ account: 'ab', provider: 'x'.repeat(51) }))).toEqual([
      'Minimum 3 symbols',
      'Maximum 50 symbols',
    ]);
    expect(loginFieldsSchema.safeParse({ account: 'none', provider: 'metamask' }).success).toBe(true);
  });

  it('wants a well-formed signature and a known provider', () => {
    expect(messages(loginRequestSchema.safeParse({ message: 'm', signature: '0x12', provider: 'metamask' }))).toEqual([
      'La firma no es válida: se esperan 65 bytes en hexadecimal (0x y 130 cifras).',
    ]);
    expect(messages(loginRequestSchema.safeParse({ signature: `0x${'a'.repeat(130)}`, provider: 'metamask' }))).toEqual(['Falta el mensaje firmado (message).']);
    expect(loginRequestSchema.safeParse({ message: 'm', signature: `0x${'a'.repeat(130)}`, provider: 'otro' }).success).toBe(false);
  });
});

describe('the user id', () => {
  it('is base64 of account-provider, as the original API spelled it', () => {
    expect(userId('0xabc', 'metamask')).toBe(Buffer.from('0xabc-metamask').toString('base64'));
  });
});
