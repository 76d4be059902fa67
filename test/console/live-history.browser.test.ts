// The console's reassignment pages live over the event streams (no polling), finished
// reassignments without rate or ETA, and the history page, in Debian's Chromium against a
// gateway as `npm start` runs it (embedded simulator with data, bearer tokens per role).
// Skipped locally without /usr/bin/chromium; CI installs it (.ci/run) and never skips.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page, Request } from 'playwright-core';
import { createClient, type GatewayClient } from '../../src/client/api.js';
import { startDemoGateway, type DemoGateway } from '../cli/demo-gateway.js';
import { hasChromium, launchChromium } from './browser.js';
import { eventually } from '../eventually.js';

const skip = hasChromium() ? false : process.env.CI ? false : 'no /usr/bin/chromium (apt-get install chromium); CI installs it';

const spareBroker = (replicas: number[]) => [0, 1, 2, 3].find((b) => !replicas.includes(b))!;

const until = <T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> =>
  eventually(what, check, { timeoutMs, everyMs: 100 });

/** The GET requests a page sends to the JSON API under /reassignments, and its event streams. */
function recordRequests(page: Page): { json: string[]; streams: string[] } {
  const seen = { json: [] as string[], streams: [] as string[] };
  page.on('request', (r: Request) => {
    const path = new URL(r.url()).pathname;
    if (r.method() !== 'GET' || !path.startsWith('/reassignments')) return;
    (path.endsWith('/events') ? seen.streams : seen.json).push(path);
  });
  return seen;
}

describe('console: live reassignments over SSE, history, no rate or ETA once finished', { skip }, () => {
  let gw: DemoGateway;
  let browser: Browser;
  let api: GatewayClient;
  let page: Page;
  const pageErrors: string[] = [];
  let requests: { json: string[]; streams: string[] };

  before(async () => {
    const [g, b] = await Promise.allSettled([startDemoGateway({ SSE_PROGRESS_INTERVAL_MS: '500' }), launchChromium()]);
    if (g.status === 'fulfilled') gw = g.value;
    if (b.status === 'fulfilled') browser = b.value;
    if (g.status === 'rejected') throw g.reason;
    if (b.status === 'rejected') throw b.reason;
    api = createClient({ baseUrl: gw.url, token: gw.token.operator });
    page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    requests = recordRequests(page);
    await page.goto(`${gw.url}/`);
    await page.getByLabel('Bearer token').fill(gw.token.viewer);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Signed in as viewer-user (viewer)').waitFor();
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
  });

  let done: string;
  let cancelled: string;

  it('the list follows a new reassignment live (one list read, then the stream: no polling), with rate and ETA while it runs and neither once it ends', async () => {
    // A finished one first (unthrottled: the demo copies at 50 MiB/s).
    const p0 = (await api.topic('orders')).partitions.find((p) => p.partition === 0)!.replicas;
    done = (
      (await api.startReassignment({ partitions: [{ topic: 'orders', partition: 0, replicas: [p0[0], spareBroker(p0)] }] })) as {
        id: string;
      }
    ).id;
    await until(async () => ((await api.reassignment(done)).state === 'completed' ? true : undefined), `${done} completed`);

    await page.getByRole('link', { name: 'Reassignments', exact: true }).click();
    const doneRow = page.getByRole('row').filter({ has: page.getByRole('link', { name: done }) });
    await doneRow.getByText(/^took /).waitFor();
    assert.doesNotMatch(await doneRow.innerText(), /ETA|\/s ·/, 'a finished reassignment shows no rate and no ETA');
    await until(
      async () => (requests.streams.includes('/reassignments/events') ? true : undefined),
      'the all-reassignments stream opened',
      10_000,
    );

    // Started elsewhere (the API) while the page is open: it appears through the stream.
    const jsonBefore = requests.json.length;
    const p1 = (await api.topic('orders')).partitions.find((p) => p.partition === 1)!.replicas;
    cancelled = (
      (await api.startReassignment({
        partitions: [{ topic: 'orders', partition: 1, replicas: [p1[0], spareBroker(p1)] }],
        throttle: 1024,
        origin: { goal: 'decommission', description: 'broker 9 emptied' },
      })) as { id: string }
    ).id;
    const runningRow = page.getByRole('row').filter({ has: page.getByRole('link', { name: cancelled }) });
    await runningRow.getByText(/ETA/).waitFor({ timeout: 15_000 });
    assert.match(await runningRow.innerText(), /running/);
    // Its end arrives the same way: cancelled, and then no rate or ETA.
    await api.cancelReassignment(cancelled);
    await runningRow.getByText(/^took /).waitFor({ timeout: 15_000 });
    const atEnd = requests.json.length;
    assert.match(await runningRow.innerText(), /cancelled/);
    assert.doesNotMatch(await runningRow.innerText(), /ETA/);
    // No polling: the list is read again only after a change event (a second later at most),
    // so a few reads at most for the three changes above, not one every 2 s per row.
    // Observing what is sent while nothing changes (not a synchronisation): at most the one read
    // of the list a change event schedules (for external moves, a second after it); the polling
    // page read it every 2 s, so 2 or 3 times in this window.
    const before = atEnd;
    await page.waitForTimeout(5000);
    assert.ok(requests.json.length - before <= 1, `no polling while nothing changes; got ${requests.json.slice(before).join(', ')}`);
    assert.ok(requests.json.length - jsonBefore <= 4, `list reads after change events only: ${requests.json.slice(jsonBefore).join(', ')}`);
    assert.ok(
      !requests.json.some((p) => /^\/reassignments\/r-[^/]+$/.test(p)),
      'no summary GET per row: the list and the stream carry them',
    );
  });

  it("a finished reassignment's page shows how long it took, not a rate or an ETA, from its own stream", async () => {
    await page.goto(`${gw.url}/#/reassignments/${encodeURIComponent(done)}`);
    await page.getByTestId('state').getByText('completed').waitFor();
    const rateEta = page.getByTestId('rate-eta');
    await rateEta.waitFor();
    assert.doesNotMatch(await rateEta.innerText(), /ETA|\/s/);
    assert.match(await rateEta.innerText(), /^\d+(m\d+)?s$|^\d+h\d+m$/);
    await page
      .getByRole('term')
      .filter({ hasText: /^Took$/ })
      .waitFor();
    await until(
      async () => (requests.streams.includes(`/reassignments/${done}/events`) ? true : undefined),
      'the reassignment stream opened',
      10_000,
    );
  });

  it('the history lists finished reassignments: when, who, plan, what moved, how long, final state; filtered by state', async () => {
    await page.getByRole('link', { name: 'History' }).click();
    const table = page.getByTestId('history');
    await table.waitFor();
    const doneRow = table.getByRole('row').filter({ has: page.getByRole('link', { name: done }) });
    const text = await doneRow.innerText();
    assert.match(text, /completed/);
    assert.match(text, /operator-user/, 'who asked');
    assert.match(text, /all at once; no throttle/, 'the plan');
    assert.match(text, /1 of 1 partition\(s\), \d+(\.\d)? [KMG]iB/, 'what moved');
    const cancelledRow = table.getByRole('row').filter({ has: page.getByRole('link', { name: cancelled }) });
    assert.match(await cancelledRow.innerText(), /cancelled[\s\S]*throttle 1\.0 KiB\/s[\s\S]*0 of 1 partition\(s\) \(1 cancelled\)/);
    // The goal or plan: the origin it was started with, "manual" for a hand-written body.
    assert.equal((await cancelledRow.getByTestId('history-goal').innerText()).replace(/\s+/g, ' '), 'decommission broker 9 emptied');
    assert.equal(await doneRow.getByTestId('history-goal').innerText(), 'manual');
    // Newest finished first.
    const ids = await table.locator('tbody th a').allInnerTexts();
    assert.deepEqual(ids.slice(0, 2), [cancelled, done]);

    await page.getByLabel('Final state').selectOption('cancelled');
    await until(async () => ((await table.locator('tbody tr').count()) === 1 ? true : undefined), 'one cancelled row', 5000);
    assert.match(await page.getByTestId('history-count').innerText(), /^1 finished/);
    assert.deepEqual(pageErrors, []);
  });
});

describe('console: polling when the event streams cannot be had', { skip }, () => {
  let gw: DemoGateway;
  let browser: Browser;

  before(async () => {
    // No stream is ever granted (503 too-many-streams): the pages must still show current data.
    const [g, b] = await Promise.allSettled([startDemoGateway({ SSE_MAX_STREAMS: '0' }), launchChromium()]);
    if (g.status === 'fulfilled') gw = g.value;
    if (b.status === 'fulfilled') browser = b.value;
    if (g.status === 'rejected') throw g.reason;
    if (b.status === 'rejected') throw b.reason;
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
  });

  it('the list says it polls, and a new reassignment still appears', async () => {
    const page = await browser.newPage();
    const requests = recordRequests(page);
    await page.goto(`${gw.url}/`);
    await page.getByLabel('Bearer token').fill(gw.token.viewer);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Signed in as viewer-user (viewer)').waitFor();
    await page.getByRole('link', { name: 'Reassignments', exact: true }).click();
    // Two refused connections (the second after the 503's Retry-After, 5 s), then polling.
    await page.getByText('Polling: the event stream is not available.').waitFor({ timeout: 20_000 });
    assert.ok(requests.streams.length >= 2, `the stream was tried: ${requests.streams.join(', ')}`);
    const api = createClient({ baseUrl: gw.url, token: gw.token.operator });
    const p2 = (await api.topic('orders')).partitions.find((p) => p.partition === 2)!.replicas;
    const { id } = (await api.startReassignment({
      partitions: [{ topic: 'orders', partition: 2, replicas: [p2[0], spareBroker(p2)] }],
      throttle: 1024,
    })) as { id: string };
    await page.getByRole('link', { name: id }).waitFor({ timeout: 10_000 });
    await api.cancelReassignment(id);
  });
});
