// The header's sign-in form: who you are, and the bearer token (kept in sessionStorage by main.tsx).
import { useState } from 'preact/hooks';
import type { JSX } from 'preact';
import type { WhoAmI } from '../../client/api.js';

export function Login({
  token,
  setToken,
  me,
  meError,
}: {
  token: string | null;
  setToken: (t: string | null) => void;
  me: WhoAmI | null;
  meError: Error | null;
}) {
  const [draft, setDraft] = useState('');
  const submit = (e: JSX.TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    setToken(draft.trim() || null);
    setDraft('');
  };
  return (
    <form class="login" onSubmit={submit}>
      <span class="who" role="status" aria-live="polite">
        {me
          ? me.authentication === 'none'
            ? 'Authentication is off: you act as admin.'
            : `Signed in as ${me.id} (${me.role})`
          : meError
            ? 'Not signed in'
            : ''}
      </span>
      {token ? (
        <button type="button" class="secondary" onClick={() => setToken(null)}>
          Sign out
        </button>
      ) : (
        <>
          <label for="token">Bearer token</label>
          <input
            id="token"
            type="password"
            autocomplete="off"
            value={draft}
            onInput={(e) => setDraft((e.target as HTMLInputElement).value)}
          />
          <button type="submit" class="secondary">
            Sign in
          </button>
        </>
      )}
    </form>
  );
}
