import { publicRead } from '../../lib/server/api/route.ts';
import { strapiOne } from '../../lib/server/api/strapi.ts';

/** The admin host's `GET /sources/{id}` (Strapi v3): one as a plain object, or a 404. */
export const { GET, OPTIONS } = publicRead((request, { id }) => strapiOne('sources', request, id));
