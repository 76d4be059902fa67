// The web console and the health interlocks (issue 30) in a real browser, against a gateway as
// `npm start` runs it with the simulator's control port open: a paced move is held when a broker
// falls behind; its page says `held`, what holds it and how it resumes; the cluster page counts
// the under-replicated partitions per broker; the broker catches up and the page says `running`.
// Skipped locally without /usr/bin/chromium; CI installs it and never skips.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { createClient, type GatewayClient, type ReassignmentAccepted } from '../../src/client/api.js';
import { startDemoGateway, type DemoGateway } from '../cli/demo-gateway.js';
import { hasChromium, launchChromium } from './browser.js';

const skip = hasChromium() ? false : process.env.CI ? false : 'no /usr/bin/chromium (apt-get install chromium); CI installs it';
/** The embedded simulator's control port for this run (SIM_CONTROL_PORT). */
const CONTROL_PORT = 21000 + (process.pid % 5000);
const control = (path: string) =>
  fetch(`http://127.0.0.1:${CONTROL_PORT}${path}`, { method: 'POST' }).then((r) => assert.equal(r.status, 200));

async function until<T>(check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('web console: a held reassignment', { skip }, () => {
  let gw: DemoGateway;
  let browser: Browser;
  let api: GatewayClient;

  before(async () => {
    const [g, b] = await Promise.allSettled([startDemoGateway({ SIM_CONTROL_PORT: String(CONTROL_PORT) }), launchChromium()]);
    if (g.status === 'fulfilled') gw = g.value;
    if (b.status === 'fulfilled') browser = b.value;
    if (g.status === 'rejected') throw g.reason;
    if (b.status === 'rejected') throw b.reason;
    api = createClient({ baseUrl: gw.url, token: gw.token.operator });
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
  });

  it('shows held with what holds it, the under-replicated counts per broker, then running again', async () => {
    // Two orders partitions off broker 3, one move at a time at 1 MiB/s (24 MiB each): a queue to hold.
    const orders = (await api.topic('orders')).partitions.filter((p) => p.replicas.includes(3)).slice(0, 2);
    assert.equal(orders.length, 2);
    const partitions = orders.map((p) => ({
      topic: 'orders',
      partition: p.partition,
      replicas: p.replicas.map((b) => (b === 3 ? [0, 1, 2].find((x) => !p.replicas.includes(x))! : b)),
    }));
    const started = (await api.startReassignment({
      partitions,
      throttle: 1_048_576,
      concurrency: { perBroker: null, cluster: 1 },
    })) as ReassignmentAccepted;
    const id = started.id;
    const follower = orders.map((p) => p.replicas.find((b) => b !== 3 && b !== p.replicas[0])).find((b) => b !== undefined) ?? 2;
    // A broker none of the moves copies to falls behind: its replicas leave the ISRs it follows.
    const bystander = [0, 1, 2].find((b) => !partitions.some((p) => p.replicas.includes(b))) ?? follower;
    await control(`/brokers/${bystander}/fall-behind`);
    await until(async () => ((await api.reassignment(id)).state === 'held' ? true : undefined));

    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${gw.url}/`);
    await page.getByLabel('Bearer token').fill(gw.token.viewer);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Cluster page: under-replicated partitions per broker (led / out of ISR).
    await page.getByRole('columnheader', { name: 'Under-replicated (led / out of ISR)' }).waitFor();
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: String(bystander), exact: true }) });
    assert.match(await row.innerText(), /\b0 \/ [1-9]\d*\b/, 'its replicas out of ISR');

    await page.goto(`${gw.url}/#/reassignments/${encodeURIComponent(id)}`);
    await page.getByTestId('state').locator('.badge', { hasText: 'held' }).waitFor();
    assert.match(await page.getByTestId('state').innerText(), /held: \d+ under-replicated partition\(s\) outside any move/);
    const hold = page.getByTestId('hold');
    assert.match(
      await hold.innerText(),
      /No new move starts since .*moves in flight finish\. It resumes by itself after 3 healthy reconcile pass\(es\) in a row/,
    );
    assert.match(await hold.innerText(), /under-replicated partitions outside any move/);

    await control(`/brokers/${bystander}/catch-up`);
    await page.getByTestId('state').locator('.badge', { hasText: 'running' }).waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId('hold').count(), 0);
    assert.deepEqual(pageErrors, []);

    // Leave the demo as it was.
    const cancelled = await api.cancelReassignment(id, { rollback: true });
    const rollback = cancelled.rollback?.id;
    if (rollback) await until(async () => ((await api.reassignment(rollback)).throttlesRemovedAt ? true : undefined), 90_000);
    await until(async () => ((await api.reassignment(id)).throttlesRemovedAt ? true : undefined), 30_000);
  });
});
