/**
 * Limits on what one GraphQL query may ask, checked as validation rules before anything runs
 * (introspection fields are exempt):
 *
 * - Depth: at most `MAX_DEPTH` levels of nested fields.
 * - Cost: an estimate of the rows and queries a query can cause, at most `MAX_COST`. A list field
 *   counts the rows it can return (its `limit`: the literal, else the variable's declared default,
 *   else the most a variable may ask, 100) and multiplies everything below it; a connection's
 *   `values` takes the connection's limit; a `groupBy` field is reckoned at `GROUPS_ESTIMATE`
 *   groups. Every field that starts its own database query (a root field, a list, `values`, a
 *   `groupBy` field, a count) adds `QUERY_COST`; any other object field adds 1. Counts under a
 *   groupBy key are already known and cost 1. The estimate is enforced where it matters: a groupBy
 *   with more groups than that which asks for `values` or `groupBy` under each key is refused
 *   by its resolver (key and aggregate alone are answered for any number of groups: one query).
 *
 * So `categories(limit: 5) { alexandrias { cid } }` costs 10 + 5 + 5 × (10 + 10) = 115, and
 * `categories(limit: 100) { alexandrias(limit: 100) { id } }` costs 11,110 and is refused.
 */
import {
  Kind,
  type ASTVisitor,
  type FieldNode,
  type GraphQLArgument,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValueNode,
} from 'graphql';
import { createGraphQLError } from 'graphql-yoga';
import { MAX_LIMIT } from '../queries/find.ts';

export const MAX_DEPTH = 10;
export const MAX_COST = 5_000;
export const QUERY_COST = 10;
export const GROUPS_ESTIMATE = 100;

// The `graphql` package can be loaded twice (its ESM and CommonJS builds, as Vite and Node resolve
// it), and its `isObjectType` & co. are `instanceof` checks that fail across the copies: these
// read the types' own tags instead. Errors are made with yoga's `createGraphQLError` for the same reason.
const tagOf = (value: unknown) => Object.prototype.toString.call(value).slice(8, -1);
const isObject = (type: unknown): type is GraphQLObjectType => tagOf(type) === 'GraphQLObjectType';
function namedTypeOf(type: GraphQLOutputType): GraphQLNamedType {
  let current: GraphQLOutputType = type;
  while ('ofType' in current) current = current.ofType;
  return current;
}
function isList(type: GraphQLOutputType): boolean {
  const nullable = tagOf(type) === 'GraphQLNonNull' && 'ofType' in type ? type.ofType : type;
  return tagOf(nullable) === 'GraphQLList';
}

/** How deep a query nests its fields (a leaf counts as a level; introspection does not). */
export function depthLimitRule(context: ValidationContext): ASTVisitor {
  const fragmentDepth = new Map<string, number>();
  const depthOf = (selectionSet: SelectionSetNode): number => {
    let deepest = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__')) continue;
        deepest = Math.max(deepest, 1 + (selection.selectionSet ? depthOf(selection.selectionSet) : 0));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        deepest = Math.max(deepest, depthOf(selection.selectionSet));
      } else {
        const name = selection.name.value;
        if (!fragmentDepth.has(name)) {
          // A cycle (reported by the standard rules) counts as no depth rather than forever.
          fragmentDepth.set(name, 0);
          const fragment = context.getFragment(name);
          fragmentDepth.set(name, fragment ? depthOf(fragment.selectionSet) : 0);
        }
        deepest = Math.max(deepest, fragmentDepth.get(name) ?? 0);
      }
    }
    return deepest;
  };
  return {
    OperationDefinition(operation) {
      const depth = depthOf(operation.selectionSet);
      if (depth > MAX_DEPTH) {
        context.reportError(
          createGraphQLError(`La consulta anida ${depth} niveles de campos y el máximo es ${MAX_DEPTH}. Divídala en consultas menos profundas.`, {
            nodes: [operation],
            extensions: { code: 'QUERY_TOO_DEEP' },
          }),
        );
      }
    },
  };
}

interface Scope {
  /** The `limit` of the connection whose fields are being costed. */
  connectionLimit: number;
  /** Under a groupBy key, whose counts are already known. */
  inGroup: boolean;
}

/** The cost estimate of `operation`, as described at the top of this file. */
export function operationCost(context: ValidationContext, operation: OperationDefinitionNode): number {
  const rootType = context.getSchema().getRootType(operation.operation);
  if (!rootType) return 0;
  const variableDefaults = new Map(
    (operation.variableDefinitions ?? []).map((definition) => [definition.variable.name.value, definition.defaultValue]),
  );

  const limitOf = (field: FieldNode, argument: GraphQLArgument): number => {
    let value: ValueNode | undefined = field.arguments?.find((given) => given.name.value === 'limit')?.value;
    if (value?.kind === Kind.VARIABLE) value = variableDefaults.get(value.name.value) ?? { kind: Kind.INT, value: String(MAX_LIMIT) };
    if (!value || value.kind === Kind.NULL) return typeof argument.defaultValue === 'number' ? argument.defaultValue : MAX_LIMIT;
    // A limit out of range is refused by the resolver with its own, clearer message.
    return value.kind === Kind.INT ? Math.min(Math.max(Number(value.value), 0), MAX_LIMIT) : MAX_LIMIT;
  };

  // Cost is linear in the multiplier above, so a fragment's cost per row is computed once.
  const fragmentCost = new Map<string, number>();
  const costOf = (selectionSet: SelectionSetNode, parentType: GraphQLNamedType, scope: Scope): number => {
    let cost = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        cost += costOf(selection.selectionSet, parentType, scope);
        continue;
      }
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        const key = `${name}:${parentType.name}:${scope.connectionLimit}:${scope.inGroup}`;
        if (!fragmentCost.has(key)) {
          fragmentCost.set(key, 0);
          const fragment = context.getFragment(name);
          fragmentCost.set(key, fragment ? costOf(fragment.selectionSet, parentType, scope) : 0);
        }
        cost += fragmentCost.get(key) ?? 0;
        continue;
      }
      const name = selection.name.value;
      if (name.startsWith('__') || !isObject(parentType)) continue;
      const definition = parentType.getFields()[name];
      if (!definition) continue;
      const type = namedTypeOf(definition.type);
      if (!isObject(type) || !selection.selectionSet) {
        if (parentType.name.endsWith('Aggregator')) cost += scope.inGroup ? 1 : QUERY_COST;
        continue;
      }
      const limitArgument = definition.args.find((argument) => argument.name === 'limit');
      const listed = isList(definition.type);
      let rows = 1;
      let own = parentType === rootType ? QUERY_COST : 0;
      let below = scope;
      if (limitArgument && listed) {
        rows = limitOf(selection, limitArgument);
        own = QUERY_COST;
      } else if (limitArgument) {
        below = { connectionLimit: limitOf(selection, limitArgument), inGroup: false };
        own = 0;
      } else if (name === 'values' && parentType.name.endsWith('Connection')) {
        rows = scope.connectionLimit;
        own = QUERY_COST;
      } else if (parentType.name.endsWith('GroupBy')) {
        rows = GROUPS_ESTIMATE;
        own = QUERY_COST;
        below = { ...scope, inGroup: true };
      }
      cost += own + rows + rows * costOf(selection.selectionSet, type, below);
    }
    return cost;
  };
  return costOf(operation.selectionSet, rootType, { connectionLimit: MAX_LIMIT, inGroup: false });
}

export function costLimitRule(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(operation) {
      const cost = operationCost(context, operation);
      if (cost > MAX_COST) {
        const shown = Number.isFinite(cost) ? Math.round(cost).toLocaleString('es') : 'incalculable';
        context.reportError(
          createGraphQLError(
            `La consulta es demasiado costosa: ${shown} puntos, y el máximo es ${MAX_COST.toLocaleString('es')}. ` +
              'Pida menos filas con limit (también en las listas anidadas) o divídala en varias consultas.',
            { nodes: [operation], extensions: { code: 'QUERY_TOO_COSTLY' } },
          ),
        );
      }
    },
  };
}
