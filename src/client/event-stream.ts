// Server-Sent Events for the console and the CLI, over fetch rather than EventSource:
// EventSource cannot send an Authorization header (the token would have to go in the URL, and
// so into proxy and access logs). The parsing follows the HTML Living Standard's
// "Interpreting an event stream" (9.2.6); reconnection follows EventSource: wait `retry` ms,
// send Last-Event-ID, go on.

export interface ServerSentEvent {
  /** `message` when the stream names no type. */
  event: string;
  /** The last event id as of this event (the stream's cursor), or null when none was sent yet. */
  id: string | null;
  data: string;
}

export type StreamItem = { kind: 'event'; event: ServerSentEvent } | { kind: 'comment'; text: string } | { kind: 'retry'; ms: number };

/** Incremental parser: push text as it arrives, get the items completed by it. */
export class EventStreamParser {
  #buffer = '';
  #event = '';
  #data: string[] = [];
  #lastId: string | null;
  #sawData = false;

  constructor(lastEventId: string | null = null) {
    this.#lastId = lastEventId;
  }

  get lastEventId(): string | null {
    return this.#lastId;
  }

  push(text: string): StreamItem[] {
    this.#buffer += text;
    const out: StreamItem[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.#buffer);
      if (!m) break;
      // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
      if (m[0] === '\r' && m.index === this.#buffer.length - 1) break;
      const line = this.#buffer.slice(0, m.index);
      this.#buffer = this.#buffer.slice(m.index + m[0].length);
      this.#line(line, out);
    }
    return out;
  }

  #line(line: string, out: StreamItem[]): void {
    if (line === '') {
      // Dispatch: an event with data (a block of id: alone only moves the cursor).
      if (this.#sawData)
        out.push({ kind: 'event', event: { event: this.#event || 'message', id: this.#lastId, data: this.#data.join('\n') } });
      this.#event = '';
      this.#data = [];
      this.#sawData = false;
      return;
    }
    if (line.startsWith(':')) {
      out.push({ kind: 'comment', text: line.slice(1).trimStart() });
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') {
      this.#data.push(value);
      this.#sawData = true;
    } else if (field === 'id') {
      if (!value.includes('\0')) this.#lastId = value;
    } else if (field === 'retry' && /^\d+$/.test(value)) out.push({ kind: 'retry', ms: Number(value) });
  }
}

export interface FollowOptions {
  /** The stream's absolute URL. */
  url: string;
  token?: string | null;
  onEvent: (e: ServerSentEvent) => void;
  /** Each (re)connection that answered 200. */
  onOpen?: () => void;
  /** A refused connection (not 200) or a broken one; `fatal` when it will not reconnect (401, 403, 404). */
  onError?: (err: StreamError) => void;
  onComment?: (text: string) => void;
  lastEventId?: string | null;
  /** Reconnection delay until the server sends its own `retry` (default 3000 ms). */
  retryMs?: number;
  fetch?: typeof fetch;
}

export class StreamError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly fatal: boolean,
    readonly retryAfterSeconds: number | null = null,
    /** The problem's `type` when the refusal was a problem document. */
    readonly problemType: string | null = null,
  ) {
    super(message);
    this.name = 'StreamError';
  }
}

export interface FollowHandle {
  close(): void;
  /** The cursor a reconnection sends as Last-Event-ID. */
  readonly lastEventId: string | null;
}

/**
 * Follows an event stream until close(): reconnects after a broken or refused connection (as
 * EventSource does, with Last-Event-ID), except on 401/403/404, which end it (onError fatal).
 */
export function followEventStream(o: FollowOptions): FollowHandle {
  const doFetch = o.fetch ?? fetch;
  const abort = new AbortController();
  let lastEventId = o.lastEventId ?? null;
  let retryMs = o.retryMs ?? 3000;
  let closed = false;

  const once = async (): Promise<void> => {
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (o.token) headers.Authorization = `Bearer ${o.token}`;
    if (lastEventId !== null) headers['Last-Event-ID'] = lastEventId;
    const res = await doFetch(o.url, { headers, signal: abort.signal, cache: 'no-store' });
    if (res.status !== 200 || !res.body || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      const text = await res.text().catch(() => '');
      let detail = text;
      let type: string | null = null;
      try {
        const problem = JSON.parse(text) as { detail?: string; type?: string };
        detail = problem.detail ?? text;
        type = typeof problem.type === 'string' ? problem.type : null;
      } catch {
        // not a problem document
      }
      const retryAfter = Number(res.headers.get('retry-after'));
      throw new StreamError(
        `${res.status}: ${detail}`.trim(),
        res.status,
        [401, 403, 404, 405].includes(res.status),
        Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
        type,
      );
    }
    o.onOpen?.();
    const parser = new EventStreamParser(lastEventId);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const item of parser.push(value)) {
        if (item.kind === 'retry') retryMs = item.ms;
        else if (item.kind === 'comment') o.onComment?.(item.text);
        else {
          lastEventId = item.event.id;
          o.onEvent(item.event);
        }
        if (closed) return;
      }
    }
    throw new StreamError('the stream ended', null, false);
  };

  void (async () => {
    while (!closed) {
      try {
        await once();
      } catch (err) {
        if (closed) return;
        const e = err instanceof StreamError ? err : new StreamError(err instanceof Error ? err.message : String(err), null, false);
        o.onError?.(e);
        if (e.fatal) return;
        await new Promise((r) => setTimeout(r, e.retryAfterSeconds !== null ? e.retryAfterSeconds * 1000 : retryMs));
      }
    }
  })();

  return {
    close() {
      closed = true;
      abort.abort();
    },
    get lastEventId() {
      return lastEventId;
    },
  };
}
