/**
 * Typed errors of the archive, mapped to HTTP in one place. An endpoint throws them; `toResponse`
 * turns them into a JSON answer `{ code, message }` whose `code` equals the HTTP status, with a
 * Spanish (or spec-given) message and nothing of the server's internals.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.headers = headers;
  }
}

/**
 * A 410 for what a moderator withdrew: `recordPage`, the path of the page that gives the public
 * reason, goes with the answer, so that a refusal page can link it (`refusal-page.ts`).
 */
export class WithdrawnError extends HttpError {
  readonly recordPage: string | null;

  constructor(message: string, recordPage: string | null, headers: Record<string, string> = {}) {
    super(410, message, headers);
    this.name = 'WithdrawnError';
    this.recordPage = recordPage;
  }
}

export class ValidationError extends HttpError {
  readonly issues: Array<{ field: string; message: string }>;

  constructor(message: string, issues: Array<{ field: string; message: string }> = []) {
    super(400, message);
    this.name = 'ValidationError';
    this.issues = issues;
  }
}

export class UnauthorizedError extends HttpError {
  constructor(message = 'Sesión no válida o caducada.') {
    super(401, message);
    this.name = 'UnauthorizedError';
  }
}

export class ForbiddenError extends HttpError {
  constructor(message: string) {
    super(403, message);
    this.name = 'ForbiddenError';
  }
}

/** What was asked clashes with the state of the thing asked about (a snapshot asked to run). */
export class ConflictError extends HttpError {
  /** The field of a form the conflict is about (a catalogue address another source has), when one is. */
  readonly field: string | undefined;

  constructor(message: string, { field }: { field?: string } = {}) {
    super(409, message);
    this.name = 'ConflictError';
    this.field = field;
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(message: string) {
    super(413, message);
    this.name = 'PayloadTooLargeError';
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor(message: string) {
    super(415, message);
    this.name = 'UnsupportedMediaTypeError';
  }
}

export class TooManyRequestsError extends HttpError {
  constructor(retryAfterSeconds: number) {
    super(429, 'Demasiadas solicitudes: espere un momento y vuelva a intentarlo.', {
      'Retry-After': String(retryAfterSeconds),
    });
    this.name = 'TooManyRequestsError';
  }
}

/** A JSON answer that nobody caches (everything here is per user or per request). */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'private, no-store', ...headers },
  });
}

const INTERNAL_ERROR = 'Error interno del archivo. Vuelva a intentarlo más tarde.';

/**
 * The one answer for anything thrown, wherever it is answered (endpoints, REST envelopes, pages,
 * the middleware's refusals): typed errors as they say, with their own headers (Retry-After,
 * Allow), the rest as a 500 that shows nothing of the server. `headers` are the caller's, such as
 * the public reads' CORS; an error's own headers win.
 */
export function toResponse(error: unknown, headers: Record<string, string> = {}): Response {
  if (!(error instanceof HttpError)) {
    console.error(error);
    return json({ code: 500, message: INTERNAL_ERROR }, 500, headers);
  }
  const body = {
    code: error.status,
    message: error.message,
    ...(error instanceof ValidationError ? { issues: error.issues } : {}),
    ...(error instanceof WithdrawnError && error.recordPage ? { recordPage: error.recordPage } : {}),
  };
  return json(body, error.status, { ...headers, ...error.headers });
}

/** Runs an endpoint's recipe, answering its typed errors. */
export async function handle(recipe: () => Promise<Response>): Promise<Response> {
  try {
    return await recipe();
  } catch (error) {
    return toResponse(error);
  }
}
