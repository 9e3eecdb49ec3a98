import { publicRead } from '../lib/server/api/route.ts';
import { strapiList } from '../lib/server/api/strapi.ts';

/** The admin host's `GET /categories` (Strapi v3 conventions, api/strapi.ts): a plain JSON array. */
export const { GET, OPTIONS } = publicRead((request) => strapiList('categories', request));
