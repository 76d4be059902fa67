// KIP-368 re-authentication on @platformatic/kafka connections: what the transport adds to the
// library's own mechanism.
//
// The library (2.12.1, Connection) re-authenticates by itself: when SaslAuthenticate v1+ answers
// session_lifetime_ms > 0 it sets a timer for 0.8 of it, then sends SaslHandshake and the
// mechanism's SaslAuthenticate exchange again on the same connection, asking the token source
// anew. What is added here:
//  1. While it re-authenticates, the connection's status is REAUTHENTICATING and the library
//     still writes any request it is given. Kafka closes a connection that sends anything but
//     SaslAuthenticate between the handshake and the end of the exchange
//     (SaslServerAuthenticator.handleSaslToken: "Unexpected Kafka request of type ... during
//     SASL authentication", IllegalSaslStateException). The pool already holds back a request
//     that asks for the connection meanwhile (ConnectionPool.get waits on Connection.ready); a
//     request that got the connection before and sends after (an await in between) would not be:
//     untilReauthenticated() holds it until the exchange is over. Requests already written go
//     before the handshake, and the broker answers them first, in order.
//  2. The timer is cleared by close() and by socket errors, but not when the broker closes the
//     connection: it would later re-authenticate a dead connection (a request that waits for
//     the request timeout, then an 'error'). Calling close() on 'close' clears it (close() on a
//     closed connection does only that).
//  3. The pool listens for one 'error' per connection ('once'); a second (a socket error after
//     a failed re-authentication) would have no listener and throw from the event emitter. A
//     listener of our own absorbs it: requests on the connection see it closing, as before.
import { ConnectionStatuses, type Connection } from '@platformatic/kafka';

const watched = new WeakSet<Connection>();

/** Call once per new connection (the pool's 'connect' event). */
export function watchConnection(conn: Connection): void {
  if (watched.has(conn)) return;
  watched.add(conn);
  conn.on('error', () => {});
  conn.once('close', () => void conn.close().catch(() => undefined));
}

/** Resolves when `conn` is not re-authenticating (at once, usually); never rejects. */
export function untilReauthenticated(conn: Connection): Promise<void> | undefined {
  if (conn.status !== ConnectionStatuses.REAUTHENTICATING) return undefined;
  return new Promise<void>((resolve) => {
    const done = (): void => {
      conn.off('connect', done);
      conn.off('close', done);
      conn.off('error', done);
      resolve();
    };
    // 'connect' is what the library emits when a re-authentication succeeds; 'error'/'close' when not.
    conn.on('connect', done);
    conn.on('close', done);
    conn.on('error', done);
  });
}
