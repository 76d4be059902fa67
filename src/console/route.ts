// The console's routing: the page is in location.hash (#/topics/<name>, #/reassignments/<id>…),
// so links are plain anchors and the back button works without a server-side route.
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { page: 'cluster' }
  | { page: 'topics' }
  | { page: 'topic'; name: string }
  | { page: 'reassignments' }
  | { page: 'reassignment'; id: string }
  | { page: 'throttles' }
  | { page: 'quotas' }
  | { page: 'history' };

export function parseHash(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  switch (parts[0]) {
    case 'topics':
      return parts[1] ? { page: 'topic', name: parts[1] } : { page: 'topics' };
    case 'reassignments':
      return parts[1] ? { page: 'reassignment', id: parts[1] } : { page: 'reassignments' };
    case 'throttles':
      return { page: 'throttles' };
    case 'quotas':
      return { page: 'quotas' };
    case 'history':
      return { page: 'history' };
    default:
      return { page: 'cluster' };
  }
}
export const href = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join('/')}`;

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}
