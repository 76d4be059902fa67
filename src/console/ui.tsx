// Pieces every console page uses (split from main.tsx so a page can live in its own file):
// polling, a problem as a sentence, the role note, the loading line.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, roleAtLeast, type Role, type WhoAmI } from '../client/api.js';

// ---------------------------------------------------------------- data: polling

export interface Poll<T> {
  data: T | null;
  error: ApiError | Error | null;
  refresh: () => void;
}

/**
 * Calls `load` now and every `intervalMs` while the page is visible. Stops on 401/403/404
 * (polling again would only repeat them) until `refresh`; after a 429/503 waits Retry-After.
 */
export function usePoll<T>(load: () => Promise<T>, deps: unknown[], intervalMs: number): Poll<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      if (stopped) return;
      if (document.visibilityState === 'hidden') {
        timer = setTimeout(run, 500);
        return;
      }
      let wait = intervalMs;
      try {
        const d = await load();
        if (stopped) return;
        setData(d);
        setError(null);
      } catch (err) {
        if (stopped) return;
        const e = err instanceof Error ? err : new Error(String(err));
        setError(e);
        if (e instanceof ApiError && [401, 403, 404].includes(e.status)) return;
        if (e instanceof ApiError && e.retryAfterSeconds !== null) wait = Math.max(wait, e.retryAfterSeconds * 1000);
      }
      timer = setTimeout(run, wait);
    };
    setData(null);
    setError(null);
    void run();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
    // The caller lists what `load` reads in `deps` (no react-hooks lint here to check it).
  }, [...deps, tick]);
  return { data, error, refresh };
}

export function ProblemBox({ error, title }: { error: ApiError | Error | null; title?: string }) {
  const [left, setLeft] = useState<number | null>(null);
  const retry = error instanceof ApiError ? error.retryAfterSeconds : null;
  useEffect(() => {
    if (retry === null) return setLeft(null);
    setLeft(retry);
    const t = setInterval(() => setLeft((s) => (s === null || s <= 0 ? 0 : s - 1)), 1000);
    return () => clearInterval(t);
  }, [error]);
  if (!error) return null;
  return (
    <div class="alert" role="alert">
      {title && <strong>{title}: </strong>}
      {error.message}
      {error instanceof ApiError && error.status === 429 && left !== null && (
        <div>{left > 0 ? `Rate limited: you can try again in ${left} s.` : 'You can try again now.'}</div>
      )}
      {error instanceof ApiError && error.status === 401 && <div>Enter a valid bearer token above.</div>}
    </div>
  );
}

export function RoleHint({ me, need }: { me: WhoAmI | null; need: Role }) {
  if (!me || roleAtLeast(me.role, need)) return null;
  return (
    <p class="note">
      These actions need the {need} role; you are {me.role}, so the gateway will refuse them.
    </p>
  );
}

export function Loading({ poll, what }: { poll: Poll<unknown>; what: string }) {
  if (poll.error) return <ProblemBox error={poll.error} title={`Could not load ${what}`} />;
  if (poll.data === null) return <p aria-busy="true">Loading {what}…</p>;
  return null;
}
