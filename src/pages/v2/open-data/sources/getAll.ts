import { namedGetAll } from '../../../../lib/server/api/endpoints.ts';
import { publicRead } from '../../../../lib/server/api/route.ts';

export const { GET, OPTIONS } = publicRead((request) => namedGetAll('src', request));
