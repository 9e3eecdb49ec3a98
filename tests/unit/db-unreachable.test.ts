/**
 * The one line the operator's commands print for a database they cannot reach: its code and its
 * code, what it means in Spanish and its own words, also for the AggregateError `localhost` fails with when both ::1 and 127.0.0.1 refuse.
 */
import { describe, expect, it } from 'vitest';
import { lostDatabase, messageOf, unreachableDatabase } from '../../src/lib/server/db/unreachable.ts';

const withCode = <E extends Error>(error: E, code: string) => Object.assign(error, { code });

describe('unreachableDatabase', () => {
  it('tells a refused connection, a host that does not resolve and a wrong password in one line', () => {
    expect(unreachableDatabase(withCode(new Error('connect ECONNREFUSED 127.0.0.1:1'), 'ECONNREFUSED'))).toBe(
      'rechazó la conexión (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1)',
    );
    expect(unreachableDatabase(withCode(new Error('getaddrinfo ENOTFOUND db.invalid'), 'ENOTFOUND'))).toBe(
      'no se encuentra el nombre del servidor (ENOTFOUND: getaddrinfo ENOTFOUND db.invalid)',
    );
    expect(unreachableDatabase(withCode(new Error('password authentication failed for user "u"'), '28P01'))).toBe(
      'el usuario o la contraseña no son válidos (28P01: password authentication failed for user "u")',
    );
    expect(unreachableDatabase(withCode(new Error('database "x" does not exist'), '3D000'))).toMatch(/^la base de datos no existe \(3D000: /);
  });

  it('gives the first error’s words when localhost refused on both of its addresses', () => {
    const both = withCode(
      new AggregateError([new Error('connect ECONNREFUSED ::1:5432'), new Error('connect ECONNREFUSED 127.0.0.1:5432')], ''),
      'ECONNREFUSED',
    );
    expect(unreachableDatabase(both)).toBe('rechazó la conexión (ECONNREFUSED: connect ECONNREFUSED ::1:5432)');
  });

  it('leaves every other failure to its caller (a migration, a seed file keep their stack)', () => {
    expect(unreachableDatabase(withCode(new Error('relation "x" does not exist'), '42P01'))).toBeNull();
    expect(unreachableDatabase(new Error('ECONNREFUSED in a message but no code'))).toBeNull();
    expect(unreachableDatabase('ECONNREFUSED')).toBeNull();
    expect(unreachableDatabase(null)).toBeNull();
    // A code that is a property of every object is not a code of ours.
    expect(unreachableDatabase(withCode(new Error('x'), 'toString'))).toBeNull();
  });
});

describe('messageOf', () => {
  it('is never empty', () => {
    expect(messageOf(new AggregateError([], ''))).toBe('AggregateError');
    expect(messageOf(withCode(new AggregateError([], ''), 'ECONNREFUSED'))).toBe('ECONNREFUSED');
    expect(messageOf('texto')).toBe('texto');
  });
});

describe('lostDatabase', () => {
  /** As drizzle wraps a driver's failure: the query's error, the driver's as its cause. */
  const failedQuery = (cause: Error) => new Error('Failed query: select 1\nparams: ', { cause });

  it('finds, under the query that failed, a connection that closed, reset or is no longer there', () => {
    expect(lostDatabase(failedQuery(new Error('Connection terminated unexpectedly')))).toBe('Connection terminated unexpectedly');
    expect(lostDatabase(failedQuery(withCode(new Error('write EPIPE'), 'EPIPE')))).toBe('EPIPE: write EPIPE');
    const socketGone = Object.assign(withCode(new Error('connect ENOENT /tmp/db/.s.PGSQL.5432'), 'ENOENT'), { syscall: 'connect' });
    expect(lostDatabase(failedQuery(socketGone))).toBe('ENOENT: connect ENOENT /tmp/db/.s.PGSQL.5432');
  });

  it('leaves a failure of the query itself, a missing file or a refused password to its caller', () => {
    expect(lostDatabase(Object.assign(withCode(new Error("ENOENT: no such file or directory, open '/datos/x'"), 'ENOENT'), { syscall: 'open' }))).toBeNull();
    expect(lostDatabase(failedQuery(withCode(new Error('password authentication failed'), '28P01')))).toBeNull();
    expect(lostDatabase(failedQuery(withCode(new Error('relation "x" does not exist'), '42P01')))).toBeNull();
    expect(lostDatabase(new Error('Failed query: select 1'))).toBeNull();
    expect(lostDatabase(undefined)).toBeNull();
  });
});
