/**
 * A request's JSON is checked before any code walks it: a NUL anywhere, or nesting deeper than
 * MAX_JSON_DEPTH, is a 400 in Spanish. The walk has its own stack: 200,000 brackets (a 400 KB
 * body, under the 1 MB limit) once overflowed the call stack of the recursive NUL check, a 500 for
 * anyone, before any rate limit.
 */
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/lib/server/http/errors.ts';
import { jsonProblem, MAX_JSON_DEPTH, NUL_MESSAGE, parseJson } from '../../src/lib/server/http/input.ts';
import { z } from 'zod';

const nested = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
const TOO_DEEP = /^El JSON anida más de 64 niveles de listas u objetos, que no se admiten\.$/;

describe('jsonProblem', () => {
  it('accepts what the archive takes, up to the depth limit', () => {
    expect(jsonProblem({ title: 'Nómina', tags: ['a', 'b'], where: { or: [{ type: 'csv' }] } })).toBeNull();
    expect(jsonProblem(JSON.parse(nested(MAX_JSON_DEPTH)))).toBeNull();
    expect(jsonProblem(null)).toBeNull();
    expect(jsonProblem(5)).toBeNull();
  });

  it('names a NUL in a string or a key, at any depth, and nesting one level too deep', () => {
    expect(jsonProblem({ a: [{ b: 'x\0y' }] })).toBe(NUL_MESSAGE);
    expect(jsonProblem({ 'cla\0ve': 1 })).toBe(NUL_MESSAGE);
    expect(jsonProblem(JSON.parse(nested(MAX_JSON_DEPTH + 1)))).toMatch(TOO_DEEP);
    expect(jsonProblem(JSON.parse(`${'{"a":'.repeat(MAX_JSON_DEPTH + 1)}1${'}'.repeat(MAX_JSON_DEPTH + 1)}`))).toMatch(TOO_DEEP);
  });

  it('walks 200,000 levels without overflowing the stack', () => {
    expect(jsonProblem(JSON.parse(nested(200_000)))).toMatch(TOO_DEEP);
  });
});

const JSON_TYPE = { 'Content-Type': 'application/json' };

describe('parseJson', () => {
  it('takes JSON by any of its names, or a body that names no type; refuses a form or plain text with a 415 that says what to send', async () => {
    const schema = z.object({ message: z.string() });
    const body = '{"message":"hola"}';
    const read = (headers: Record<string, string>) => parseJson(new Request('http://archivo.test/x', { method: 'POST', headers, body }), schema).catch((failure: unknown) => failure);
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/merge-patch+json']) {
      expect(await read({ 'Content-Type': type })).toEqual({ message: 'hola' });
    }
    const untyped = new Request('http://archivo.test/x', { method: 'POST', body: new TextEncoder().encode(body) });
    expect(untyped.headers.get('content-type')).toBeNull();
    expect(await parseJson(untyped, schema)).toEqual({ message: 'hola' });
    for (const type of ['text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp', 'text/json']) {
      const refusal = (await read({ 'Content-Type': type })) as HttpError;
      expect([refusal.status, refusal.message], type).toEqual([415, 'El cuerpo de la petición debe ser JSON, enviado con la cabecera Content-Type: application/json.']);
    }
  });

  it('answers a body of 200,000 brackets with a 400 in Spanish', async () => {
    const request = new Request('http://archivo.test/auth/login', { method: 'POST', headers: JSON_TYPE, body: `{"message":${nested(200_000, '')}}` });
    const error = await parseJson(request, z.object({ message: z.string() })).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(400);
    expect((error as HttpError).message).toMatch(TOO_DEEP);
  });

  it("says zod's own findings in Spanish: a list or null where an object goes, a number where a text goes", async () => {
    const schema = z.object({ message: z.string() });
    const refusal = async (body: string) => ((await parseJson(new Request('http://archivo.test/x', { method: 'POST', headers: JSON_TYPE, body }), schema).catch((failure: unknown) => failure)) as HttpError).message;
    expect(await refusal('[1,2]')).toBe('Entrada inválida: se esperaba objeto, recibido arreglo');
    expect(await refusal('null')).toBe('Entrada inválida: se esperaba objeto, recibido nulo');
    expect(await refusal('{"message":5}')).toBe('Entrada inválida: se esperaba texto, recibido número');
  });
});
