/**
 * How wide one GraphQL operation may be, checked as a validation rule before anything runs:
 *
 * - Root fields: at most `MAX_ROOT_FIELDS` answers at the top level (aliases included). Each root
 *   field is its own database work, and the cost estimate alone let 250 aliased filtered counts
 *   through (issue #16, item 7); no honest document needs more than a handful (the original front
 *   end sends at most four).
 * - Aliases: at most `MAX_ALIASES` anywhere in the operation, fragments counted where they are
 *   spread. Aliases below the root cost the database nothing, but each one repeats a field for
 *   every row, so they multiply what the answer carries.
 *
 * Fields the same response key asks for twice are merged by GraphQL and counted once.
 */
import { Kind, type ASTVisitor, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode, type ValidationContext } from 'graphql';
import { createGraphQLError } from 'graphql-yoga';

export const MAX_ROOT_FIELDS = 25;
export const MAX_ALIASES = 50;

type FragmentOf = (name: string) => FragmentDefinitionNode | null | undefined;

/** The distinct response keys of `selectionSet`, looking through fragments (introspection left out). */
function responseKeys(selectionSet: SelectionSetNode, fragmentOf: FragmentOf, seen = new Set<string>()): Set<string> {
  const keys = new Set<string>();
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (!selection.name.value.startsWith('__')) keys.add(selection.alias?.value ?? selection.name.value);
      continue;
    }
    let inner: SelectionSetNode | undefined = selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : undefined;
    if (selection.kind === Kind.FRAGMENT_SPREAD && !seen.has(selection.name.value)) {
      // A cycle is reported by the standard rules; here it simply ends.
      seen.add(selection.name.value);
      inner = fragmentOf(selection.name.value)?.selectionSet;
    }
    if (inner) for (const key of responseKeys(inner, fragmentOf, seen)) keys.add(key);
  }
  return keys;
}

/** How many aliased fields `selectionSet` holds, each fragment counted every time it is spread. */
function aliasCount(selectionSet: SelectionSetNode, fragmentOf: FragmentOf, perFragment = new Map<string, number>()): number {
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      count += (selection.alias ? 1 : 0) + (selection.selectionSet ? aliasCount(selection.selectionSet, fragmentOf, perFragment) : 0);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      count += aliasCount(selection.selectionSet, fragmentOf, perFragment);
    } else {
      const name = selection.name.value;
      if (!perFragment.has(name)) {
        perFragment.set(name, 0);
        const fragment = fragmentOf(name);
        perFragment.set(name, fragment ? aliasCount(fragment.selectionSet, fragmentOf, perFragment) : 0);
      }
      count += perFragment.get(name) ?? 0;
    }
  }
  return count;
}

/** Why `operation` is too wide, in Spanish, or null when it is not. */
export function widthProblem(operation: OperationDefinitionNode, fragmentOf: FragmentOf): string | null {
  const roots = responseKeys(operation.selectionSet, fragmentOf).size;
  if (roots > MAX_ROOT_FIELDS) {
    return `La consulta pide ${roots} campos en su primer nivel (alias incluidos) y el máximo es ${MAX_ROOT_FIELDS}. Divídala en varias consultas.`;
  }
  const aliases = aliasCount(operation.selectionSet, fragmentOf);
  if (aliases > MAX_ALIASES) return `La consulta usa ${aliases} alias y el máximo es ${MAX_ALIASES}. Divídala en varias consultas.`;
  return null;
}

/** Refuses an operation with too many root fields or aliases (see the top of this file). */
export function widthLimitRule(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(operation) {
      const problem = widthProblem(operation, (name) => context.getFragment(name));
      if (problem) context.reportError(createGraphQLError(problem, { nodes: [operation], extensions: { code: 'QUERY_TOO_WIDE', http: { status: 400, spec: false } } }));
    },
  };
}
