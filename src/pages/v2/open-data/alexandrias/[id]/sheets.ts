import { publicRead } from '../../../../../lib/server/api/route.ts';
import { alexandriaSheets } from '../../../../../lib/server/spreadsheets/endpoint.ts';

export const { GET, OPTIONS } = publicRead((request, params) => alexandriaSheets(request, params.id));
