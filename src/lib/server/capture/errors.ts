/**
 * Why a capture failed, as one controlled vocabulary: the job queue records the `reason` code and
 * shows its Spanish message to moderators, so every failure of a hostile or broken server reads
 * the same wherever it surfaces. The code is stable (stored, switched on by retries); the message
 * is for people.
 */

/** Every reason a fetch for a capture can fail, with its Spanish message and whether a retry may help. */
export const CAPTURE_FAILURES = {
  invalid_url: { message: 'la dirección no es una URL válida', retryable: false },
  unsupported_scheme: { message: 'solo se capturan direcciones http y https', retryable: false },
  private_address: { message: 'dirección privada o reservada', retryable: false },
  own_address: { message: 'la dirección es la del propio archivo, que no se cosecha a sí mismo', retryable: false },
  dns_failed: { message: 'no se pudo resolver el nombre del servidor', retryable: true },
  connect_failed: { message: 'no se pudo conectar con el servidor', retryable: true },
  connect_timeout: { message: 'tiempo agotado al conectar', retryable: true },
  headers_timeout: { message: 'tiempo agotado esperando cabeceras', retryable: true },
  body_idle_timeout: { message: 'el servidor dejó de enviar datos', retryable: true },
  total_timeout: { message: 'la descarga superó el tiempo máximo', retryable: true },
  too_many_redirects: { message: 'demasiadas redirecciones', retryable: false },
  redirect_loop: { message: 'redirección circular', retryable: false },
  too_large: { message: 'cuerpo mayor que el límite', retryable: false },
  body_incomplete: { message: 'el servidor cortó la respuesta antes de terminarla', retryable: true },
  invalid_response: { message: 'respuesta HTTP no válida', retryable: true },
  tls_failed: { message: 'fallo en la conexión segura (TLS)', retryable: true },
  aborted: { message: 'captura cancelada', retryable: true },
} as const satisfies Record<string, { message: string; retryable: boolean }>;

export type CaptureFailureReason = keyof typeof CAPTURE_FAILURES;

/** The one error a capture fetch throws (or emits on its body stream) on purpose. */
export class CaptureError extends Error {
  override readonly name = 'CaptureError';
  readonly reason: CaptureFailureReason;
  /** The URL being fetched when it failed (a redirect hop, not necessarily the requested one). */
  readonly url: string | undefined;

  /**
   * @param detail what makes this case concrete (the address, the limit), appended to the message
   */
  constructor(reason: CaptureFailureReason, detail?: string, options?: ErrorOptions & { url?: string }) {
    super(detail ? `${CAPTURE_FAILURES[reason].message}: ${detail}` : CAPTURE_FAILURES[reason].message, options);
    this.reason = reason;
    this.url = options?.url;
  }

  /** Whether trying the same URL again later may succeed (a timeout may; a private address never will). */
  get retryable(): boolean {
    return CAPTURE_FAILURES[this.reason].retryable;
  }
}
