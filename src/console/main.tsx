// The gateway's web console: Preact, bundled by esbuild (src/http/console.ts), served by the
// gateway at `/`. It uses the same HTTP API as everybody else through the shared typed
// client (src/client/api.ts), with the same bearer token, kept in sessionStorage only.
//
// The reassignment pages are live over the gateway's event streams (Server-Sent Events, read
// with fetch because EventSource cannot send the bearer token; live.ts), and fall back to
// polling when a stream cannot be had. The other pages poll while the tab is visible, every
// 2-5 s.
//
// This file is the shell: the token, who is signed in, the menu and the page for the route.
// The pages are in pages/, the pieces they share in components/; ui.tsx (polling, problems, role notes) and live.ts (the event streams) serve them all.
import { render } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, createClient, type WhoAmI } from '../client/api.js';
import { ProblemBox } from './ui.js';
import { HistoryPage } from './pages/history.js';
import { href, useRoute, type Route } from './route.js';
import { Login } from './components/login.js';
import { ClusterPage } from './pages/cluster.js';
import { TopicsPage } from './pages/topics.js';
import { TopicPage } from './pages/topic.js';
import { ReassignmentsPage } from './pages/reassignments.js';
import { ReassignmentPage } from './pages/reassignment.js';
import { ThrottlesPage } from './pages/throttles.js';
import { QuotasPage } from './pages/quotas.js';

const TOKEN_KEY = 'kafka-admin-gateway.token';

// ---------------------------------------------------------------- shell

const NAV: [Route['page'], string, string][] = [
  ['cluster', '#/cluster', 'Cluster'],
  ['topics', '#/topics', 'Topics'],
  ['reassignments', '#/reassignments', 'Reassignments'],
  ['history', '#/history', 'History'],
  ['throttles', '#/throttles', 'Throttles'],
  ['quotas', '#/quotas', 'Quotas'],
];

function App() {
  const [token, setTokenState] = useState<string | null>(() => sessionStorage.getItem(TOKEN_KEY));
  const setToken = (t: string | null) => {
    if (t) sessionStorage.setItem(TOKEN_KEY, t);
    else sessionStorage.removeItem(TOKEN_KEY);
    setTokenState(t);
  };
  const api = useMemo(() => createClient({ baseUrl: '', token }), [token]);
  const [me, setMe] = useState<WhoAmI | null>(null);
  const [meError, setMeError] = useState<Error | null>(null);
  useEffect(() => {
    setMe(null);
    setMeError(null);
    // The answer for an earlier token (a 401 before sign-in) must not land after this one's.
    let current = true;
    api.whoami().then(
      (w) => current && setMe(w),
      (e: Error) => current && setMeError(e),
    );
    return () => {
      current = false;
    };
  }, [api]);
  const route = useRoute();
  const mainRef = useRef<HTMLElement>(null);
  // Move focus to the new page's content for keyboard and screen-reader users.
  useEffect(() => mainRef.current?.focus(), [route.page]);
  const active = route.page === 'topic' ? 'topics' : route.page === 'reassignment' ? 'reassignments' : route.page;
  const props = { api, me, token };
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <h1>Kafka Admin Gateway</h1>
        <nav aria-label="Sections">
          <ul>
            {NAV.map(([page, link, label]) => (
              <li key={page}>
                <a href={link} aria-current={active === page ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <Login token={token} setToken={setToken} me={me} meError={meError} />
      </header>
      <main id="main" ref={mainRef} tabIndex={-1}>
        {meError instanceof ApiError && meError.status === 401 ? (
          <ProblemBox error={meError} title="Sign in" />
        ) : !me && !meError ? (
          <p aria-busy="true">Connecting…</p>
        ) : (
          <>
            {route.page === 'cluster' && <ClusterPage {...props} />}
            {route.page === 'topics' && <TopicsPage {...props} />}
            {route.page === 'topic' && <TopicPage {...props} name={route.name} />}
            {route.page === 'reassignments' && <ReassignmentsPage {...props} />}
            {route.page === 'reassignment' && <ReassignmentPage {...props} id={route.id} />}
            {route.page === 'throttles' && <ThrottlesPage {...props} />}
            {route.page === 'quotas' && <QuotasPage {...props} />}
            {route.page === 'history' && <HistoryPage api={api} token={token} href={href} />}
          </>
        )}
      </main>
    </>
  );
}

const root = document.getElementById('app')!;
root.textContent = ''; // the no-JavaScript notice
render(<App />, root);
