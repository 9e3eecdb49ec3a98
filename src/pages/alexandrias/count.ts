import { publicRead } from '../../lib/server/api/route.ts';
import { strapiCount } from '../../lib/server/api/strapi.ts';

/** The admin host's `GET /alexandrias/count` (Strapi v3): how many match the filters, as a bare number. */
export const { GET, OPTIONS } = publicRead((request) => strapiCount('alexandrias', request));
