import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/lib/server/http/errors.ts';
import { refuseCrossSiteForm } from '../../src/lib/server/http/origin-check.ts';

const HOSTS = ['archivo.example.org'];

function statusOf(method: string, headers: Record<string, string>): number {
  // The adapter behind a TLS-ending proxy sees http://, whatever the browser was on.
  const request = new Request('http://archivo.example.org/logout', { method, headers });
  try {
    refuseCrossSiteForm(request, HOSTS);
    return 200;
  } catch (error) {
    if (error instanceof HttpError) return error.status;
    throw error;
  }
}

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

describe('cross-site form posts', () => {
  it("accept the archive's own forms, also when the browser is on https behind a proxy (issue #16 review)", () => {
    expect(statusOf('POST', { ...FORM, Origin: 'https://archivo.example.org' })).toBe(200);
    expect(statusOf('POST', { ...FORM, Origin: 'http://archivo.example.org' })).toBe(200);
    expect(statusOf('POST', { 'Content-Type': 'multipart/form-data; boundary=x', Origin: 'https://archivo.example.org' })).toBe(200);
  });

  it('refuse a form from another site, a null origin, or none at all', () => {
    expect(statusOf('POST', { ...FORM, Origin: 'https://evil.example' })).toBe(403);
    expect(statusOf('POST', { ...FORM, Origin: 'https://archivo.example.org.evil.example' })).toBe(403);
    expect(statusOf('POST', { ...FORM, Origin: 'null' })).toBe(403);
    expect(statusOf('POST', FORM)).toBe(403);
    expect(statusOf('POST', { 'Content-Type': 'text/plain', Origin: 'https://evil.example' })).toBe(403);
    // A body-less request without Origin reads as a form too.
    expect(statusOf('DELETE', {})).toBe(403);
  });

  it('let a script with its own Bearer token and no Origin post without a body (curl), but not a page of another site', () => {
    expect(statusOf('POST', { Authorization: 'Bearer abc.def' })).toBe(200);
    expect(statusOf('POST', { ...FORM, Authorization: 'bearer abc' })).toBe(200);
    expect(statusOf('POST', { ...FORM, Authorization: 'Bearer abc', Origin: 'https://evil.example' })).toBe(403);
    // Any other scheme, or an empty token, leaves the cookie in charge (`sessionToken`): still a form.
    expect(statusOf('POST', { Authorization: 'Basic YTpi' })).toBe(403);
    expect(statusOf('POST', { Authorization: 'Bearer ' })).toBe(403);
    // Read as `sessionToken` reads it: a tab is no «Bearer », so the cookie would be the credential.
    expect(statusOf('POST', { Authorization: 'Bearer\tabc' })).toBe(403);
  });

  it('tell a script that sends no Origin what it may send instead, and a page of another site that its form is refused', () => {
    const messageOf = (headers: Record<string, string>) => {
      try {
        refuseCrossSiteForm(new Request('http://archivo.example.org/v2/health', { method: 'POST', headers }), HOSTS);
        return null;
      } catch (error) {
        return (error as HttpError).message;
      }
    };
    expect(messageOf({ 'Content-Type': 'text/plain' })).toBe(
      'Una petición que cambia algo sin cabecera Origin debe llevar su token (Authorization: Bearer) o un cuerpo JSON (Content-Type: application/json): un formulario solo se acepta desde las páginas del archivo.',
    );
    expect(messageOf({ ...FORM, Origin: 'https://evil.example' })).toBe('Formulario enviado desde otro sitio: no se acepta.');
  });

  it('leave safe methods and JSON (which needs a preflight the archive never grants) alone', () => {
    expect(statusOf('GET', { Origin: 'https://evil.example' })).toBe(200);
    expect(statusOf('POST', { 'Content-Type': 'application/json', Origin: 'https://evil.example' })).toBe(200);
  });
});
