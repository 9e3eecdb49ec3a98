/**
 * The sign-in button (SPEC §2 /auth/login, §4 Login form, §8): 'Please wait...' while the wallet
 * signs, the error when it fails, and the install alert when there is no wallet at all.
 */
import { useState } from 'react';
import { ApiError } from '../../lib/api/auth.ts';
import { signedIn } from '../../lib/stores/auth.ts';
import { NoWalletError, signIn, WALLET_DOWNLOAD_URL } from '../../lib/wallet/signin.ts';

export interface SignInButtonProps {
  magicApiKey?: string;
  /** Where to go once signed in. */
  next: string;
  labels: { button: string; waiting: string; noWallet: string; failed: string };
}

export default function SignInButton({ magicApiKey, next, labels }: SignInButtonProps) {
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function onClick() {
    setError(null);
    setSubmitting(true);
    try {
      const session = await signIn(magicApiKey);
      signedIn(session.accessToken, session.user);
      window.location.assign(next);
    } catch (failure) {
      setSubmitting(false);
      if (failure instanceof NoWalletError) {
        window.alert(labels.noWallet);
        window.open(WALLET_DOWNLOAD_URL, '_blank', 'noopener');
        return;
      }
      setError(failure instanceof ApiError ? `${failure.code}: ${failure.message}` : labels.failed);
    }
  }

  return (
    <div>
      <button
        type="button"
        onClick={onClick}
        disabled={submitting}
        className="w-full rounded-lg bg-indigo-700 px-4 py-3 font-semibold text-white hover:bg-indigo-800 disabled:cursor-wait disabled:opacity-70"
      >
        {submitting ? labels.waiting : labels.button}
      </button>
      {error && (
        <p role="alert" className="mt-3 rounded-lg bg-rose-50 p-3 text-sm text-rose-800">
          {error}
        </p>
      )}
    </div>
  );
}
