/**
 * Expensive GraphQL documents are rationed per client address (issue #16, item 7): the cost limit
 * bounds one document, this bounds how many a client sends. A document whose cost estimate
 * (limits.ts) is over `EXPENSIVE_COST` spends one of the address's `EXPENSIVE_ALLOWANCE` a minute,
 * kept in the database like every other rate limit (auth/rate-limit.ts); past it the answer is a
 * 429 with Retry-After and nothing runs. Cheaper documents are never counted: every document of
 * the original front end costs less, priced by what the archive holds (limits.ts; on the seeded
 * archive its heaviest, the departments' listing with their counts, about 1,150 points), as does a
 * single text search (about 260 to 360).
 *
 * Signed-in users get the same allowance on the same key: a session costs nothing but a free
 * wallet's signature, so it vouches for nothing that would justify more heavy work, and keying on
 * the account would let one client multiply its allowance with many wallets.
 */
import { getOperationAST, Kind, type DocumentNode, type FragmentDefinitionNode } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { spend, type Limit } from '../auth/rate-limit.ts';
import type { Db } from '../db/index.ts';
import { TooManyRequestsError } from '../http/errors.ts';
import { operationCost } from './limits.ts';
import type { ArchiveSizes } from './sizes.ts';

/** About seven text-filter scans (limits.ts), or a hundred groups with nineteen records each. */
export const EXPENSIVE_COST = 2_000;
export const EXPENSIVE_ALLOWANCE: Limit = { max: 30, windowSeconds: 60 };
/** The key of requests whose host named no client (never the case behind the Astro endpoint): they share one allowance. */
const UNKNOWN_CLIENT = 'desconocido';

/** What this plugin reads from yoga's context: the database, and the address the endpoint passed. */
interface RationedContext {
  db: Db;
  clientAddress?: string;
}

/** The named fragments of `document`, by name. */
function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return fragments;
}

/** The cost estimate of the operation a request runs (0 when there is none to run). */
export function requestCost(
  document: DocumentNode,
  operationName: string | null | undefined,
  schema: Parameters<typeof operationCost>[0],
  sizes: ArchiveSizes | null = null,
): number {
  const operation = getOperationAST(document, operationName);
  if (!operation) return 0;
  const fragments = fragmentsOf(document);
  return operationCost(schema, (name) => fragments.get(name), operation, sizes);
}

/**
 * The yoga plugin: before an expensive document runs, spends one of its client's allowance, or
 * answers 429 with Retry-After and a Spanish message.
 */
export function expensiveQueryRateLimit(sizes: () => ArchiveSizes | null = () => null): Plugin<RationedContext> {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      if (requestCost(args.document, args.operationName, args.schema, sizes()) <= EXPENSIVE_COST) return;
      const context = args.contextValue as RationedContext;
      try {
        await spend(context.db, `graphql:ip:${context.clientAddress ?? UNKNOWN_CLIENT}`, EXPENSIVE_ALLOWANCE);
      } catch (error) {
        if (!(error instanceof TooManyRequestsError)) throw error;
        const seconds = error.headers['Retry-After'] ?? String(EXPENSIVE_ALLOWANCE.windowSeconds);
        setResultAndStopExecution({
          errors: [
            createGraphQLError(
              `Demasiadas consultas costosas desde su dirección: se admiten ${EXPENSIVE_ALLOWANCE.max} por minuto. ` +
                `Vuelva a intentarlo en ${seconds} s, o pida menos (menos filas con limit, menos filtros de texto).`,
              { extensions: { code: 'TOO_MANY_REQUESTS', http: { status: 429, headers: { 'Retry-After': seconds } } } },
            ),
          ],
        });
      }
    },
  };
}
