/**
 * GraphQL's own error messages in Spanish, as every other answer of the archive's API ("bad input
 * gets a clear Spanish message"). graphql-js and yoga word their parse, validation and request
 * errors in English; the archive's own (limits, `where`) are written in Spanish already and pass
 * unchanged, as does any message not listed here. Names from the query and the schema stay as
 * written, in «».
 */
import type { Plugin } from 'graphql-yoga';
import type { GraphQLError } from 'graphql';

/** `"a"`, `"a" or "b"`, `"a", "b", or "c"` (graphql-js's suggestions) as «a», «a» o «b», «a», «b» o «c». */
function names(list: string): string {
  return list.replaceAll(/"([^"]*)"/g, '«$1»').replace(/,? or /, ' o ');
}

const suggestion = (list: string | undefined) => (list ? ` ¿Quiso decir ${names(list)}?` : '');

/** What a syntax error expected or found, said in words where graphql-js uses a token's kind. */
function token(text: string): string {
  if (text === '<EOF>') return 'el final de la consulta';
  if (text === 'Name') return 'un nombre';
  return names(text.startsWith('"') ? text : `"${text}"`);
}

/** A JSON value's kind as yoga names it (`typeof`, and `array` and `null`), in Spanish. */
function jsonType(type: string): string {
  const kinds: Record<string, string> = { string: 'un texto', number: 'un número', boolean: 'un booleano', object: 'un objeto', array: 'una lista', null: 'null' };
  return kinds[type] ?? type;
}

const TRANSLATIONS: Array<[RegExp, (...groups: string[]) => string]> = [
  [/^Cannot query field "([^"]+)" on type "([^"]+)"\.(?: Did you mean (.+)\?)?$/, (field, type, maybe) => `El tipo «${type}» no tiene el campo «${field}».${suggestion(maybe)}`],
  [/^Unknown argument "([^"]+)" on field "([^"]+)"\.(?: Did you mean (.+)\?)?$/, (argument, field, maybe) => `El campo «${field}» no admite el argumento «${argument}».${suggestion(maybe)}`],
  [/^Field "([^"]+)" of type "([^"]+)" must have a selection of subfields\./, (field, type) => `El campo «${field}» (de tipo «${type}») necesita que se pidan sus subcampos, entre llaves: ${field} { … }.`],
  // graphql-js writes «more that»: either spelling, should it be corrected.
  [/^Syntax Error: Document contains more th(?:an|at) (\d+) tokens\. Parsing aborted\.$/, (tokens) => `La consulta tiene más de ${tokens} elementos: no se analiza.`],
  [/^Syntax Error: Expected (.+), found (.+)\.$/, (expected, found) => `Error de sintaxis en la consulta: se esperaba ${token(expected)} y llegó ${token(found)}.`],
  [/^Syntax Error: Unexpected (.+)\.$/, (found) => `Error de sintaxis en la consulta: ${found === '<EOF>' ? 'está vacía o acaba antes de tiempo' : `no se esperaba ${token(found)}`}.`],
  [/^Syntax Error: (.+)$/, (detail) => `Error de sintaxis en la consulta (${detail})`],
  [/^Must provide query string\.$/, () => 'Falta la consulta (el campo query).'],
  [/^POST body sent invalid JSON\.$/, () => 'El cuerpo de la petición no es JSON válido.'],
  [/^Variable "\$([^"]+)" of required type "([^"]+)" was not provided\.$/, (name, type) => `Falta la variable obligatoria «$${name}» (de tipo «${type}»).`],
  [/^Int cannot represent non 32-bit signed integer value: (.+)$/s, (value) => `${value} no es un valor de tipo «Int» (un entero entre −2,147,483,648 y 2,147,483,647).`],
  [/^(Int|Float|String|Boolean|ID) cannot represent [^:]+: (.+)$/s, (type, value) => `${value} no es un valor de tipo «${type}».`],
  [/^Value "([^"]*)" does not exist in "([^"]+)" enum\.(?: Did you mean (.+)\?)?$/, (value, type, maybe) => `«${value}» no es uno de los valores de «${type}».${suggestion(maybe)}`],
  [/^Field "([^"]+)" is not defined by type "([^"]+)"\.(?: Did you mean (.+)\?)?$/, (field, type, maybe) => `El tipo «${type}» no tiene el campo «${field}».${suggestion(maybe)}`],
  [/^Field "([^"]+)" of required type "([^"]+)" was not provided\.$/, (field, type) => `Falta el campo obligatorio «${field}» (de tipo «${type}»).`],
  [/^Expected type "([^"]+)" to be an object\.$/, (type) => `Se esperaba un objeto de tipo «${type}».`],
  [/^Expected non-nullable type "([^"]+)" not to be null\.$/, (type) => `El tipo «${type}» no admite null.`],
  [/^Expected value of type "([^"]+)", found (.+?)(?:\.|; (.+))$/s, (type, found, detail) => `Se esperaba un valor de tipo «${type}» y llegó ${found}${detail ? `: ${translated(detail)}` : '.'}`],
  [/^Unknown type "([^"]+)"\.(?: Did you mean (.+)\?)?$/, (type, maybe) => `El tipo «${type}» no existe.${suggestion(maybe)}`],
  [/^Could not determine what operation to execute\.$/, () => 'No se sabe qué operación ejecutar: con varias en la consulta, indique cuál (operationName), con el nombre de una de ellas.'],
  [/^Unknown operation named "([^"]+)"\.$/, (name) => `La consulta no tiene ninguna operación llamada «${name}» (operationName).`],
  [/^Cannot spread fragment "([^"]+)" within itself(?: via (.+))?\.$/, (name, via) => `El fragmento «${name}» se incluye a sí mismo${via ? ` (a través de ${names(via)})` : ''}: no se admite.`],
  [/^Unknown fragment "([^"]+)"\.$/, (name) => `El fragmento «${name}» no existe.`],
  [/^Fragment "([^"]+)" is never used\.$/, (name) => `El fragmento «${name}» no se usa.`],
  [/^Variable "\$([^"]+)" is never used(?: in operation "([^"]+)")?\.$/, (name) => `La variable «$${name}» se declara pero no se usa.`],
  [/^Variable "\$([^"]+)" is not defined(?: by operation "([^"]+)")?\.$/, (name) => `La variable «$${name}» no está declarada.`],
  [/^Unknown directive "([^"]+)"\.$/, (name) => `La directiva «${name}» no existe.`],
  [/^The directive "([^"]+)" can only be used once at this location\.$/, (name) => `La directiva «${name}» solo puede usarse una vez en ese lugar.`],
  [/^Schema is not configured to execute (\w+) operation\.$/, (operation) => `Esta API solo responde consultas (query): no admite operaciones «${operation}».`],
  [/^Too many validation errors, error limit reached\. Validation aborted\.$/, () => 'Demasiados errores en la consulta: se deja de revisarla.'],
  [/^Maximum introspection depth exceeded$/, () => 'La introspección de la consulta anida demasiados niveles.'],
  [/^Batching is not supported\.$/, () => 'No se admiten varias consultas en una misma petición (una lista JSON): envíe una cada vez.'],
  [/^Expected "query" param to be a string, but given (\w+)\.$/, (type) => `El campo query debe ser un texto, no ${jsonType(type)}.`],
  [/^Expected "(variables|extensions)" param to be empty or an object, but given (\w+)\.$/, (field, type) => `El campo ${field} debe ser un objeto JSON, o no estar, no ${jsonType(type)}.`],
  [/^(?:Expected params to be an object but given|POST body is expected to be object but received) (\w+)\.?$/, (type) => `El cuerpo de la petición debe ser un objeto JSON, como {"query": "…"}, no ${jsonType(type)}.`],
  [/^Unexpected parameter "([^"]*)" in the request body\.$/, (name) => `La petición lleva el campo «${name}», que no se admite: solo query, variables, operationName y extensions.`],
  [/^Invalid "params" in the request body$/, () => 'El campo params de la petición no es válido.'],
  [/^Content-Length header is invalid\.$/, () => 'La cabecera Content-Length no es válida.'],
  [/^Can only perform a mutation operation from a POST request\.$/, () => 'Una operación «mutation» solo puede enviarse por POST.'],
  [/^Unexpected error\.$/, () => 'Error inesperado.'],
  [/^Request body too large$/, () => 'El cuerpo de la petición es demasiado grande.'],
  [/^GraphQL only supports GET and POST requests\.$/, () => 'GraphQL solo admite peticiones GET y POST.'],
];

/**
 * Longest message put in Spanish. A longer one holds much of a client's own text (an object's keys,
 * a value, which graphql-js prints as they came): it is left as it is rather than matched at length,
 * so that no request can make the server scan a message of a hundred kilobytes.
 */
const MAX_TRANSLATED = 1_000;

/** graphql-js's word on a variable's wrong value: its name, then the value as it came, where in it, and the reason. */
const INVALID_VARIABLE = /^Variable "\$([^"]+)" got invalid value /;

/**
 * How graphql-js's reasons for a wrong value begin. The value before them is the client's own text
 * and may hold «; » too («"a; b"»): the reason starts at the first «; » followed by one of these,
 * or else (the archive's own reasons, from its scalars, in Spanish) after the last «; ».
 */
const REASON_START = /; (?=(?:Int|Float|String|Boolean|ID) cannot represent |Enum "|Value "|Field "|Expected )/;

/** The message in Spanish, or as it was when it is not one of graphql-js's or yoga's listed here. */
export function inSpanish(message: string): string {
  if (message.length > MAX_TRANSLATED) return message;
  const variable = INVALID_VARIABLE.exec(message);
  if (!variable) return translated(message);
  const split = REASON_START.exec(message)?.index ?? message.lastIndexOf('; ');
  if (split < variable[0].length) return message;
  const [, value, at] = /^(.*?)(?: at "([^"]+)")?$/s.exec(message.slice(variable[0].length, split))!;
  // The reason is one of graphql-js's own, said in Spanish too, and once only: it does not repeat
  // a value the sentence gives already («"x": no es un valor de tipo «Int»»).
  const reason = translated(message.slice(split + 2));
  const said = reason.startsWith(`${value} `) ? reason.slice(value!.length + 1) : reason;
  return `La variable «$${variable[1]}» tiene un valor no válido${at ? ` en «${at}»` : ''}, ${value}: ${said}`;
}

function translated(message: string): string {
  for (const [pattern, say] of TRANSLATIONS) {
    const match = pattern.exec(message);
    if (match) return say(...match.slice(1));
  }
  return message;
}

/**
 * Translates, in place, the errors of every result the server sends (`inSpanish`). In place, and
 * the message only: yoga reads an error's status from the objects it made (a copy, or one whose
 * extensions were touched, answered a body that is not JSON with 200 instead of 400). Such an
 * error keeps `extensions.originalError`, whose message (the JSON parser's) is put in Spanish too.
 */
export const spanishErrors: Plugin = {
  onResultProcess({ result }) {
    if (Symbol.asyncIterator in result) return;
    for (const one of Array.isArray(result) ? result : [result]) {
      for (const error of (one.errors ?? []) as GraphQLError[]) {
        error.message = inSpanish(error.message);
        // The JSON parser's English words about the client's body, under the same Spanish message:
        // rewritten inside the object, since replacing `extensions` would change the status.
        const original = error.extensions?.originalError as { name?: unknown; message?: unknown } | undefined;
        if (original?.name === 'SyntaxError' && typeof original.message === 'string') original.message = error.message;
      }
    }
  },
};
