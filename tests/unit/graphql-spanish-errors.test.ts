/**
 * graphql-js's and yoga's error messages in Spanish (src/lib/server/graphql/spanish-errors.ts),
 * word for word as they come from graphql 16 and graphql-yoga 5; the answers themselves are
 * checked in tests/integration/graphql-limits.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { inSpanish } from '../../src/lib/server/graphql/spanish-errors.ts';

describe('GraphQL errors in Spanish', () => {
  it.each([
    ['Cannot query field "nope" on type "Query".', 'El tipo «Query» no tiene el campo «nope».'],
    ['Cannot query field "titl" on type "Category". Did you mean "title"?', 'El tipo «Category» no tiene el campo «titl». ¿Quiso decir «title»?'],
    ['Cannot query field "nam" on type "Source". Did you mean "name", "url", or "id"?', 'El tipo «Source» no tiene el campo «nam». ¿Quiso decir «name», «url» o «id»?'],
    ['Unknown argument "nope" on field "Query.categories".', 'El campo «Query.categories» no admite el argumento «nope».'],
    ['Field "categories" of type "[Category!]!" must have a selection of subfields. Did you mean "categories { ... }"?', 'El campo «categories» (de tipo «[Category!]!») necesita que se pidan sus subcampos, entre llaves: categories { … }.'],
    ['Syntax Error: Expected Name, found <EOF>.', 'Error de sintaxis en la consulta: se esperaba un nombre y llegó el final de la consulta.'],
    // What an empty query gets ({"query": ""}), and a token where none fits.
    ['Syntax Error: Unexpected <EOF>.', 'Error de sintaxis en la consulta: está vacía o acaba antes de tiempo.'],
    ['Syntax Error: Unexpected "}".', 'Error de sintaxis en la consulta: no se esperaba «}».'],
    ['Syntax Error: Expected ":", found "}".', 'Error de sintaxis en la consulta: se esperaba «:» y llegó «}».'],
    ['Syntax Error: Document contains more than 5000 tokens. Parsing aborted.', 'La consulta tiene más de 5000 elementos: no se analiza.'],
    ['Must provide query string.', 'Falta la consulta (el campo query).'],
    ['POST body sent invalid JSON.', 'El cuerpo de la petición no es JSON válido.'],
    ['Variable "$a" of required type "Int!" was not provided.', 'Falta la variable obligatoria «$a» (de tipo «Int!»).'],
    ['Int cannot represent non-integer value: "x"', '"x" no es un valor de tipo «Int».'],
    // A variable's wrong value, with graphql-js's reason in Spanish too (word for word from graphql 16).
    ['Variable "$l" got invalid value "x"; Int cannot represent non-integer value: "x"', 'La variable «$l» tiene un valor no válido, "x": no es un valor de tipo «Int».'],
    [
      'Variable "$l" got invalid value 100000000000000000000; Int cannot represent non 32-bit signed integer value: 100000000000000000000',
      'La variable «$l» tiene un valor no válido, 100000000000000000000: no es un valor de tipo «Int» (un entero entre −2,147,483,648 y 2,147,483,647).',
    ],
    ['Variable "$w" got invalid value "nope" at "w.status"; Value "nope" does not exist in "Status" enum.', 'La variable «$w» tiene un valor no válido en «w.status», "nope": «nope» no es uno de los valores de «Status».'],
    [
      'Variable "$w" got invalid value { statu: "on_line", n: 1 }; Field "statu" is not defined by type "W". Did you mean "status"?',
      'La variable «$w» tiene un valor no válido, { statu: "on_line", n: 1 }: El tipo «W» no tiene el campo «statu». ¿Quiso decir «status»?',
    ],
    ['Variable "$w" got invalid value { status: "on_line" }; Field "n" of required type "Int!" was not provided.', 'La variable «$w» tiene un valor no válido, { status: "on_line" }: Falta el campo obligatorio «n» (de tipo «Int!»).'],
    ['Variable "$w" got invalid value "x"; Expected type "W" to be an object.', 'La variable «$w» tiene un valor no válido, "x": Se esperaba un objeto de tipo «W».'],
    ['Value "nope" does not exist in "Status" enum.', '«nope» no es uno de los valores de «Status».'],
    ['Expected value of type "Int!", found null.', 'Se esperaba un valor de tipo «Int!» y llegó null.'],
    ['Syntax Error: Document contains more that 5000 tokens. Parsing aborted.', 'La consulta tiene más de 5000 elementos: no se analiza.'],
    ['Could not determine what operation to execute.', 'No se sabe qué operación ejecutar: con varias en la consulta, indique cuál (operationName), con el nombre de una de ellas.'],
    ['Unknown operation named "otra".', 'La consulta no tiene ninguna operación llamada «otra» (operationName).'],
    ['Cannot spread fragment "A" within itself.', 'El fragmento «A» se incluye a sí mismo: no se admite.'],
    ['Cannot spread fragment "A" within itself via "B", "C".', 'El fragmento «A» se incluye a sí mismo (a través de «B», «C»): no se admite.'],
    ['Unknown fragment "Nope".', 'El fragmento «Nope» no existe.'],
    ['Fragment "A" is never used.', 'El fragmento «A» no se usa.'],
    ['Variable "$a" is never used.', 'La variable «$a» se declara pero no se usa.'],
    ['Variable "$a" is never used in operation "Q".', 'La variable «$a» se declara pero no se usa.'],
    ['Variable "$a" is not defined by operation "Q".', 'La variable «$a» no está declarada.'],
    ['Unknown directive "@nope".', 'La directiva «@nope» no existe.'],
    ['The directive "@include" can only be used once at this location.', 'La directiva «@include» solo puede usarse una vez en ese lugar.'],
    ['Schema is not configured to execute mutation operation.', 'Esta API solo responde consultas (query): no admite operaciones «mutation».'],
    ['Too many validation errors, error limit reached. Validation aborted.', 'Demasiados errores en la consulta: se deja de revisarla.'],
    ['Maximum introspection depth exceeded', 'La introspección de la consulta anida demasiados niveles.'],
    ['Batching is not supported.', 'No se admiten varias consultas en una misma petición (una lista JSON): envíe una cada vez.'],
    ['Expected "query" param to be a string, but given number.', 'El campo query debe ser un texto, no un número.'],
    ['Expected "query" param to be a string, but given array.', 'El campo query debe ser un texto, no una lista.'],
    ['Expected "variables" param to be empty or an object, but given string.', 'El campo variables debe ser un objeto JSON, o no estar, no un texto.'],
    ['Expected "extensions" param to be empty or an object, but given number.', 'El campo extensions debe ser un objeto JSON, o no estar, no un número.'],
    ['POST body is expected to be object but received string', 'El cuerpo de la petición debe ser un objeto JSON, como {"query": "…"}, no un texto.'],
    ['POST body is expected to be object but received null', 'El cuerpo de la petición debe ser un objeto JSON, como {"query": "…"}, no null.'],
    ['Expected params to be an object but given array.', 'El cuerpo de la petición debe ser un objeto JSON, como {"query": "…"}, no una lista.'],
    ['Unexpected parameter "foo" in the request body.', 'La petición lleva el campo «foo», que no se admite: solo query, variables, operationName y extensions.'],
    ['Content-Length header is invalid.', 'La cabecera Content-Length no es válida.'],
    ['Request body too large', 'El cuerpo de la petición es demasiado grande.'],
    ['GraphQL only supports GET and POST requests.', 'GraphQL solo admite peticiones GET y POST.'],
  ])('%s', (english, spanish) => {
    expect(inSpanish(english)).toBe(spanish);
  });

  it('reads a variable\'s value holding «; », a line break or graphql-js\'s own words as the value, and translates the reason once', () => {
    expect(inSpanish('Variable "$n" got invalid value "a; b"; Int cannot represent non-integer value: "a; b"')).toBe('La variable «$n» tiene un valor no válido, "a; b": no es un valor de tipo «Int».');
    expect(inSpanish('Variable "$n" got invalid value { "k\n": 1 }; Int cannot represent non-integer value: { "k\n": 1 }')).toBe(
      'La variable «$n» tiene un valor no válido, { "k\n": 1 }: no es un valor de tipo «Int».',
    );
    // A value that reads like another variable's error is not translated as one, nested.
    const nested = inSpanish('Variable "$n" got invalid value { k: Variable "$m" got invalid value x; y }; Expected type "W" to be an object.');
    expect(nested.match(/La variable/g)).toHaveLength(1);
  });

  it('leaves a message too long to be only graphql-js\'s words as it is', () => {
    // A request's object keys of «; ; ; …» and a line break made the pattern scan the message over and over.
    const key = `k${'; '.repeat(45_000)}\n`;
    const message = `Variable "$n" got invalid value { "${key}": 1 }; Int cannot represent non-integer value: { "${key}": 1 }`;
    expect(inSpanish(message)).toBe(message);
  });

  it("leaves the archive's own messages, and any it does not know, as they are", () => {
    for (const message of ['where no admite "nope". Campos admitidos: id, _id.', 'La consulta anida más de 64 niveles.', 'Something new in graphql 17.']) {
      expect(inSpanish(message)).toBe(message);
    }
  });
});
