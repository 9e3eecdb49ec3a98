/**
 * The three ways the catalogue is grouped (SPEC §2 /group/{entity}): by source, by department
 * (ministry or issuing institution) and by category. The URL segment is the key.
 */
export const GROUP_ENTITIES = {
  src: { titleKey: 'group.src.title', seeAllKey: 'group.src.seeAll' },
  dep: { titleKey: 'group.dep.title', seeAllKey: 'group.dep.seeAll' },
  cat: { titleKey: 'group.cat.title', seeAllKey: 'group.cat.seeAll' },
} as const;
export type GroupEntity = keyof typeof GROUP_ENTITIES;

export function isGroupEntity(value: string | undefined): value is GroupEntity {
  return value !== undefined && Object.hasOwn(GROUP_ENTITIES, value);
}
