// A token kept fresh for SASL OAUTHBEARER: fetched when first needed, refreshed in the background
// before it expires (./refresh.ts says when), and handed to every connection that authenticates
// or re-authenticates. A failed refresh is retried with backoff while the current token is still
// valid; only once it has expired does a connection see the failure. Token values never appear
// in errors or events.
import { isDue, refreshAtMs, retryWaitMs, type TokenLifetime } from './refresh.js';
import type { TokenRefreshConfig } from './config.js';

export interface FetchedToken extends TokenLifetime {
  value: string;
}

/** An error of a token fetch worth trying again soon (network, HTTP 5xx, 429). */
export class TransientTokenError extends Error {
  readonly transient = true;
}

export interface TokenEvents {
  onRefreshed?(t: TokenLifetime): void;
  onRefreshFailed?(err: Error, failures: number, retryInMs: number | null): void;
}

export interface TokenSourceOptions {
  now?: () => number;
  random?: () => number;
  events?: TokenEvents;
}

/** Tries of one fetch on a transient error before the caller sees it. */
const FETCH_TRIES = 3;
/** setTimeout's ceiling (a longer delay fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class RefreshingToken {
  #current: FetchedToken | undefined;
  #inflight: Promise<FetchedToken> | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** A connection asked for a token since the last background refresh: refreshing again is worth it. */
  #used = false;
  #failures = 0;
  #closed = false;
  readonly #now: () => number;
  readonly #random: () => number;

  constructor(
    /** Names the source in errors, e.g. "OAUTHBEARER token endpoint https://idp/token". */
    readonly describe: string,
    private readonly fetchToken: () => Promise<FetchedToken>,
    private readonly cfg: TokenRefreshConfig,
    private readonly opts: TokenSourceOptions = {},
  ) {
    this.#now = opts.now ?? Date.now;
    this.#random = opts.random ?? Math.random;
  }

  /** The token for one (re-)authentication: the current one, or a new one when it is due. */
  async token(): Promise<string> {
    this.#used = true;
    const cur = this.#current;
    const now = this.#now();
    if (cur && now < cur.expiresAtMs && !isDue(cur, now, this.cfg)) return cur.value;
    try {
      return (await this.#refresh()).value;
    } catch (err) {
      // The IdP is failing but the old token is still valid: a shorter session beats none.
      if (cur && this.#now() < cur.expiresAtMs) return cur.value;
      throw err;
    }
  }

  /** The current token's lifetime (tests, diagnostics); never its value. */
  get lifetime(): TokenLifetime | undefined {
    return this.#current && { issuedAtMs: this.#current.issuedAtMs, expiresAtMs: this.#current.expiresAtMs };
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  #refresh(): Promise<FetchedToken> {
    this.#inflight ??= this.#fetchWithRetries()
      .then((t) => {
        this.#current = t;
        this.#failures = 0;
        this.opts.events?.onRefreshed?.({ issuedAtMs: t.issuedAtMs, expiresAtMs: t.expiresAtMs });
        this.#schedule(refreshAtMs(t, this.#now(), this.cfg, this.#random));
        return t;
      })
      .finally(() => {
        this.#inflight = undefined;
      });
    return this.#inflight;
  }

  async #fetchWithRetries(): Promise<FetchedToken> {
    for (let attempt = 1; ; attempt++) {
      try {
        const t = await this.fetchToken();
        if (!(t.expiresAtMs > this.#now())) {
          throw new Error(`${this.describe}: the token has expired (exp ${new Date(t.expiresAtMs).toISOString()})`);
        }
        return t;
      } catch (err) {
        if (!(err instanceof TransientTokenError) || attempt >= FETCH_TRIES || this.#closed) throw err;
        await sleep(retryWaitMs(this.cfg, attempt, this.#random));
      }
    }
  }

  #schedule(atMs: number, retry = false): void {
    clearTimeout(this.#timer);
    if (this.#closed) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, atMs - this.#now()));
    // unref: a refresh timer never keeps the process alive on its own.
    this.#timer = setTimeout(() => this.#background(retry), delay).unref();
  }

  #background(retry: boolean): void {
    // Nobody authenticated since the last background refresh (closed or idle gateway): fetch on
    // demand instead. So a closed gateway's source stops after at most one more fetch.
    if (this.#closed || (!retry && !this.#used)) return;
    if (!retry) this.#used = false;
    this.#refresh().catch((err: Error) => {
      this.#failures++;
      const cur = this.#current;
      const wait = retryWaitMs(this.cfg, this.#failures, this.#random);
      const retry = cur !== undefined && this.#now() + wait < cur.expiresAtMs;
      this.opts.events?.onRefreshFailed?.(err, this.#failures, retry ? wait : null);
      if (retry) this.#schedule(this.#now() + wait, true);
    });
  }
}
