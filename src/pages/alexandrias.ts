import { strapiAlexandrias } from '../lib/server/api/endpoints.ts';
import { publicRead } from '../lib/server/api/route.ts';

/** The admin host's `GET /alexandrias` (Strapi v3 parameters), served by the archive itself. */
export const { GET, OPTIONS } = publicRead((request) => strapiAlexandrias(request));
