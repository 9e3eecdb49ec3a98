/**
 * The read-only GraphQL API at `/graphql` (SPEC §7 GraphQL reads; DECISIONS 'API'), served by
 * graphql-yoga: GET and POST, introspection on, any origin allowed without credentials, depth,
 * width and cost limits, expensive documents rationed per client address, every unexpected error
 * masked, and graphql-js's own messages in Spanish (`spanish-errors.ts`).
 *
 * No GraphiQL (issue #16, item 11): yoga's loads its scripts from a public CDN, without integrity
 * or CSP, on the archive's origin, where the session token sits in localStorage. A browser
 * opening /graphql is sent to the documentation, which shows how to query; a query in the
 * address (`/graphql?query=…`) is answered as JSON as before.
 */
import { createGraphQLError, createSchema, createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { PUBLIC_READ_REQUEST_HEADERS } from '../api/rest.ts';
import type { Db } from '../db/index.ts';
import { createContext, type GraphqlContext } from './context.ts';
import { costLimitRule, depthLimitRule } from './limits.ts';
import { expensiveQueryRateLimit } from './rate-limit.ts';
import { resolvers } from './resolvers.ts';
import { spanishErrors } from './spanish-errors.ts';
import { archiveSizes, type SizesSource } from './sizes.ts';
import { typeDefs } from './typeDefs.ts';
import { widthLimitRule } from './width.ts';

export { MAX_COST, MAX_DEPTH, SCAN_COST } from './limits.ts';
export { EXPENSIVE_ALLOWANCE, EXPENSIVE_COST } from './rate-limit.ts';
export { MAX_ALIASES, MAX_ROOT_FIELDS } from './width.ts';

/** More tokens than any honest query needs; parsing stops there. */
const MAX_TOKENS = 5_000;
/** Brackets of any kind open at once, far above any real query (the depth rule allows 10 fields). */
const MAX_NESTING = 64;

/** The deepest bracket nesting in a query's text, strings and comments left out. */
export function nestingOf(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  let inComment = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (inComment) {
      if (char === '\n') inComment = false;
    } else if (inString) {
      if (char === '\\') i += 1;
      else if (char === '"') inString = false;
    } else if (char === '#') inComment = true;
    else if (char === '"') inString = true;
    else if (char === '{' || char === '(' || char === '[') deepest = Math.max(deepest, ++depth);
    else if (char === '}' || char === ')' || char === ']') depth = Math.max(0, depth - 1);
  }
  return deepest;
}
const MAX_BODY_BYTES = 100_000;

/** What the host passes with each request (the Astro endpoint passes `locals.origin` and `locals.clientAddress`). */
export interface ServerContext {
  origin?: string;
  /** The client's address, which expensive documents are rationed by (rate-limit.ts). */
  clientAddress?: string;
}

export const graphqlSchema = createSchema<GraphqlContext>({ typeDefs, resolvers });

/** The depth, width and cost rules (the cost priced by the archive's `sizes`), and a bounded parser. */
const limits = (sizes: SizesSource): Plugin => ({
  // The sizes are read (when old) before the request's document is validated by them.
  onRequest: () => sizes.refresh(),
  onParse({ parseFn, setParseFn }) {
    // yoga's own parser (see limits.ts on why not ours), stopped after MAX_TOKENS tokens.
    setParseFn((source, options) => {
      // graphql-js parses recursively: thousands of nested braces overflow the stack before the
      // token limit stops it. Such a query is refused before it reaches the parser.
      if (nestingOf(typeof source === 'string' ? source : source.body) > MAX_NESTING) {
        throw createGraphQLError(`La consulta anida más de ${MAX_NESTING} niveles.`, { extensions: { code: 'QUERY_TOO_DEEP', http: { status: 400 } } });
      }
      return parseFn(source, { ...options, maxTokens: MAX_TOKENS });
    });
  },
  onValidate({ addValidationRule }) {
    addValidationRule(depthLimitRule);
    addValidationRule(widthLimitRule);
    addValidationRule(costLimitRule(sizes.current));
  },
});

/** Where a browser opening /graphql is sent: the documentation's GraphQL section. */
const GRAPHQL_DOCS = '/docs#graphql';

/** Whether `request` is a person opening /graphql in a browser: a GET for HTML with no query. */
function isBrowserVisit(request: Request, url: URL): boolean {
  return request.method === 'GET' && !url.searchParams.has('query') && (request.headers.get('accept') ?? '').includes('text/html');
}

/** Sends a browser visit to the documentation (see the top of this file on why not GraphiQL). */
const browserToDocs: Plugin = {
  onRequest({ request, url, endResponse, fetchAPI }) {
    if (isBrowserVisit(request, url)) endResponse(new fetchAPI.Response(null, { status: 303, headers: { Location: GRAPHQL_DOCS } }));
  },
};

/**
 * A request that is not a GraphQL request at all (no `query`, unusable params) is answered 400,
 * as the GraphQL-over-HTTP spec asks of a request that is not well formed. yoga marks these errors
 * `spec` and then answers them 200 to clients that accept `application/json` (the legacy rule for
 * a well-formed request whose GraphQL fails, which stays 200). Changed in place: yoga reads the
 * status from the error objects it made.
 */
const malformedRequestIs400: Plugin = {
  onResultProcess({ result }) {
    if (Symbol.asyncIterator in result) return;
    for (const one of Array.isArray(result) ? result : [result]) {
      for (const error of one.errors ?? []) {
        const http = error.extensions?.http as { spec?: boolean } | undefined;
        if (http?.spec && error.extensions?.code === 'BAD_REQUEST') http.spec = false;
      }
    }
  },
};

/**
 * A yoga server over the database that `getDb` opens (the archive's in the app, a test database
 * in the tests). Call its `fetch(request, { origin, clientAddress })`. Masked errors are logged unless
 * `logging` is false.
 */
export function createGraphqlHandler(
  getDb: () => Promise<Db>,
  { logging = true }: { logging?: boolean } = {},
): YogaServerInstance<ServerContext, GraphqlContext> {
  const sizes = archiveSizes(getDb);
  return createYoga<ServerContext, GraphqlContext>({
    logging,
    schema: graphqlSchema,
    graphqlEndpoint: '/graphql',
    context: async ({ request, origin }) => createContext(await getDb(), origin ?? new URL(request.url).origin),
    cors: { origin: '*', credentials: false, methods: ['GET', 'POST', 'OPTIONS'], allowedHeaders: [...PUBLIC_READ_REQUEST_HEADERS] },
    // Only the client's own mistakes (GraphQLErrors) are shown; anything else is this message,
    // never a stack or a database error, even in development.
    maskedErrors: { isDev: false, errorMessage: 'Error interno del archivo. Vuelva a intentarlo más tarde.' },
    graphiql: false,
    landingPage: false,
    maxRequestBodySize: MAX_BODY_BYTES,
    // A document's cost depends on the archive's sizes, which change: its validation is not cached
    // (parsing still is). Validating costs a fraction of a millisecond next to any query.
    parserAndValidationCache: { validationCache: false },
    plugins: [browserToDocs, limits(sizes), expensiveQueryRateLimit(sizes.current), malformedRequestIs400, spanishErrors],
  });
}
