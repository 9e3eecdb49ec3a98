/**
 * The password-reset form (SPEC §2, §4, §5, §8): validated as the spec says, the request sent
 * after 1 s, then the info alert on success or the red alert on failure.
 */
import { useState, type FormEvent } from 'react';
import { fieldErrors, resetEmailSchema } from '../../lib/domain/auth.ts';
import { postForgotPassword } from '../../lib/api/auth.ts';

export interface ForgotPasswordFormProps {
  labels: { email: string; submit: string; loading: string; failure: string };
}

type Status = { kind: 'idle' } | { kind: 'loading' } | { kind: 'failure' } | { kind: 'success'; message: string };

/** SPEC §9: the reset request is delayed 1 s. */
const REQUEST_DELAY_MS = 1000;

export default function ForgotPasswordForm({ labels }: ForgotPasswordFormProps) {
  const [email, setEmail] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [status, setStatus] = useState<Status>({ kind: 'idle' });

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const parsed = resetEmailSchema.safeParse({ email });
    if (!parsed.success) {
      setFieldError(fieldErrors(parsed.error)[0]?.message ?? null);
      return;
    }
    setFieldError(null);
    setStatus({ kind: 'loading' });
    await new Promise((resolve) => setTimeout(resolve, REQUEST_DELAY_MS));
    try {
      const answer = await postForgotPassword(parsed.data.email);
      setStatus({ kind: 'success', message: answer.message });
    } catch {
      setStatus({ kind: 'failure' });
    }
  }

  return (
    <form noValidate onSubmit={onSubmit} className="space-y-4">
      {status.kind === 'failure' && (
        <p role="alert" className="rounded-lg bg-rose-50 p-3 text-sm text-rose-800">{labels.failure}</p>
      )}
      {status.kind === 'success' && (
        <p role="status" className="rounded-lg bg-sky-50 p-3 text-sm text-sky-900">{status.message}</p>
      )}
      <div>
        <label htmlFor="reset-email" className="block text-sm font-medium text-slate-700">{labels.email}</label>
        <input
          id="reset-email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          aria-invalid={fieldError ? true : undefined}
          aria-describedby={fieldError ? 'reset-email-error' : undefined}
          className="mt-1 w-full rounded-lg border border-slate-300 px-3 py-2 focus:border-indigo-600 focus:outline-none"
        />
        {fieldError && <p id="reset-email-error" className="mt-1 text-sm text-rose-700">{fieldError}</p>}
      </div>
      <button type="submit" disabled={status.kind === 'loading'} className="w-full rounded-lg bg-indigo-700 px-4 py-2 font-semibold text-white hover:bg-indigo-800 disabled:opacity-70">
        {status.kind === 'loading' ? labels.loading : labels.submit}
      </button>
    </form>
  );
}
