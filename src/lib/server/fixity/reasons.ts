/**
 * How the fixity audit starts the history lines it writes: the capture job recognises a `broken`
 * status the audit set (and may give it back once the copy is repaired) by it.
 */
export const AUDIT_REASON_PREFIX = 'Auditoría de integridad';
