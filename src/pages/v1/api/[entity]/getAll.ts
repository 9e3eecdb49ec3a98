import { overviewGetAll, V1_ENTITIES } from '../../../../lib/server/api/endpoints.ts';
import { publicRead } from '../../../../lib/server/api/route.ts';
import { HttpError } from '../../../../lib/server/http/errors.ts';

export const { GET, OPTIONS } = publicRead((request, { entity }) => {
  if (!entity || !Object.hasOwn(V1_ENTITIES, entity)) {
    throw new HttpError(404, 'Entidad desconocida: use sources, departments o categories.');
  }
  return overviewGetAll(V1_ENTITIES[entity as keyof typeof V1_ENTITIES], request);
});
