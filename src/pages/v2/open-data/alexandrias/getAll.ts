import { alexandriasGetAll } from '../../../../lib/server/api/endpoints.ts';
import { publicRead } from '../../../../lib/server/api/route.ts';

export const { GET, OPTIONS } = publicRead((request) => alexandriasGetAll(request));
