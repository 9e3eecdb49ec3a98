import { publicRead } from '../../../../../lib/server/api/route.ts';
import { alexandriaVersions } from '../../../../../lib/server/versions/endpoint.ts';

export const { GET, OPTIONS } = publicRead((request, params) => alexandriaVersions(request, params.id));
