/**
 * The read-only GraphQL API at `/graphql` (SPEC §7 GraphQL reads; DECISIONS 'API'), served by
 * graphql-yoga: GET and POST, introspection on, GraphiQL for a browser, any origin allowed
 * without credentials, depth and cost limits, and every unexpected error masked.
 */
import { createGraphQLError, createSchema, createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Db } from '../db/index.ts';
import { createContext, type GraphqlContext } from './context.ts';
import { costLimitRule, depthLimitRule } from './limits.ts';
import { resolvers } from './resolvers.ts';
import { typeDefs } from './typeDefs.ts';

export { MAX_COST, MAX_DEPTH } from './limits.ts';

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

/** What the host passes with each request (the Astro endpoint passes `locals.origin`). */
export interface ServerContext {
  origin?: string;
}

export const graphqlSchema = createSchema<GraphqlContext>({ typeDefs, resolvers });

/** The depth and cost rules, and a bounded parser. */
const limits: Plugin = {
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
    addValidationRule(costLimitRule);
  },
};

const EXAMPLE = `# Las 5 categorías con más registros, y sus recuentos por formato
{
  categories(limit: 5, sort: "alexandrias:desc") {
    id
    title
    alexandriasCount
    counts { pdf csv xlsx ods other }
  }
}
`;

/**
 * A yoga server over the database that `getDb` opens (the archive's in the app, a test database
 * in the tests). Call its `fetch(request, { origin })`. Masked errors are logged unless
 * `logging` is false.
 */
export function createGraphqlHandler(
  getDb: () => Promise<Db>,
  { logging = true }: { logging?: boolean } = {},
): YogaServerInstance<ServerContext, GraphqlContext> {
  return createYoga<ServerContext, GraphqlContext>({
    logging,
    schema: graphqlSchema,
    graphqlEndpoint: '/graphql',
    context: async ({ request, origin }) => createContext(await getDb(), origin ?? new URL(request.url).origin),
    cors: { origin: '*', credentials: false, methods: ['GET', 'POST', 'OPTIONS'] },
    // Only the client's own mistakes (GraphQLErrors) are shown; anything else is this message,
    // never a stack or a database error, even in development.
    maskedErrors: { isDev: false, errorMessage: 'Error interno del archivo. Vuelva a intentarlo más tarde.' },
    graphiql: { title: 'Archivo Abierto · GraphQL', defaultQuery: EXAMPLE },
    landingPage: false,
    maxRequestBodySize: MAX_BODY_BYTES,
    plugins: [limits],
  });
}
