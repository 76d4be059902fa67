// The web console in a real browser: Debian's Chromium driven by playwright-core against a
// gateway as `npm start` runs it (embedded simulator with data, bearer tokens per role).
// A person's path: sign in, move a partition with a throttle, watch the bar reach 100 %,
// see the throttle go; a viewer who tries to cancel gets the gateway's 403, readably.
// Skipped locally without /usr/bin/chromium; CI installs it (.ci/run) and never skips.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createClient, type GatewayClient } from '../../src/client/api.js';
import { startDemoGateway, type DemoGateway } from '../cli/demo-gateway.js';
import { hasChromium, launchChromium } from './browser.js';

const skip = hasChromium() ? false : process.env.CI ? false : 'no /usr/bin/chromium (apt-get install chromium); CI installs it';

/** A broker not in `replicas`, for a one-replica move. */
const spareBroker = (replicas: number[]) => [0, 1, 2, 3].find((b) => !replicas.includes(b))!;

const progressOf = (page: Page, label: string) => page.getByRole('progressbar', { name: label });

describe('web console in Chromium', { skip }, () => {
  let gw: DemoGateway;
  let browser: Browser;
  let api: GatewayClient;

  before(async () => {
    // Keep whichever started, so that `after` closes it when the other failed (a Chromium left
    // running would keep this test process alive for good).
    const [g, b] = await Promise.allSettled([startDemoGateway(), launchChromium()]);
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

  it('signs in, moves a partition with a throttle, watches it reach 100 %, and sees the throttle removed', async () => {
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${gw.url}/`);

    // Without a token the gateway's 401 is shown as a sentence, with what to do.
    await page.getByRole('alert').filter({ hasText: '401 Authentication required' }).waitFor();
    await page.getByLabel('Bearer token').fill(gw.token.operator);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Signed in as operator-user (operator)').waitFor();
    // The token lives in sessionStorage only.
    const stored = await page.evaluate(() => ({
      session: Object.values(sessionStorage),
      local: Object.keys(localStorage).length,
      cookie: document.cookie,
    }));
    assert.deepEqual(stored, { session: [gw.token.operator], local: 0, cookie: '' });

    // Cluster: brokers with their load (GET /brokers), and a decommission plan to review.
    await page.getByRole('columnheader', { name: 'Bytes' }).waitFor();
    await page.getByLabel('Goal').selectOption('decommission');
    await page.getByLabel(/^Brokers/).fill('3');
    await page.getByRole('button', { name: 'Plan', exact: true }).click();
    const plan = page.getByRole('status', { name: 'Plan' });
    await plan.getByText('Per broker, before → after the plan').waitFor();
    assert.match(
      await plan
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: '3', exact: true }) })
        .innerText(),
      /→ 0\s/,
    );
    await plan.getByRole('button', { name: 'Review' }).waitFor();

    // Topics -> orders -> move partition 3 to one other broker at 2 MiB/s (24 MiB: ~12 s).
    await page.getByRole('link', { name: 'Topics' }).click();
    await page.getByRole('link', { name: 'orders' }).click();
    const current = (await api.topic('orders')).partitions.find((p) => p.partition === 3)!.replicas;
    const target = [current[0], spareBroker(current)];
    await page.getByLabel('Partition').selectOption('3');
    await page.getByLabel('Target replicas').fill(target.join(','));
    await page.getByLabel('Throttle (MiB/s)').fill('2');
    assert.equal(await page.getByRole('button', { name: 'Start move' }).isDisabled(), true, 'no start before a review');
    await page.getByRole('button', { name: 'Review' }).click();
    const review = page.getByRole('status', { name: 'Review' });
    await review.locator('strong', { hasText: '24.0 MiB' }).waitFor();
    assert.match(await review.innerText(), /at 2\.0 MiB\/s/);
    await page.getByRole('button', { name: 'Start move' }).click();

    // The reassignment's page: a bar in flight, then 100 %.
    await page.waitForURL(/#\/reassignments\/r-/);
    const id = decodeURIComponent(page.url().split('/').pop()!);
    const total = progressOf(page, 'Total progress');
    await page.waitForFunction(() => {
      const v = Number(document.querySelector('[aria-label="Total progress"]')?.getAttribute('aria-valuenow'));
      return v > 0 && v < 100;
    });
    await progressOf(page, 'Progress of orders-3').waitFor();
    assert.match(await page.getByTestId('throttle-state').innerText(), /2\.0 MiB\/s · set while it runs/);

    // While it runs, the Throttles page shows the gateway's throttle, linked to it.
    await page.getByRole('link', { name: 'Throttles' }).click();
    const row = page
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: id }) })
      .first();
    await row.waitFor();
    assert.match(await row.innerText(), /gateway/);
    await row.getByRole('link', { name: id }).click();

    await page.waitForFunction(
      () => document.querySelector('[aria-label="Total progress"]')?.getAttribute('aria-valuenow') === '100',
      undefined,
      { timeout: 90_000 },
    );
    assert.equal(await total.getAttribute('aria-valuenow'), '100');
    await page.locator('.badge', { hasText: 'completed' }).first().waitFor();
    await page.getByTestId('throttle-state').getByText('removed at').waitFor({ timeout: 30_000 });

    await page.getByRole('link', { name: 'Throttles' }).click();
    await page.getByText('No replication throttles are set in the cluster.').waitFor();
    assert.deepEqual(await api.throttles(), { rates: [], replicas: [] });
    assert.deepEqual((await api.topic('orders')).partitions.find((p) => p.partition === 3)!.replicas, target);
    assert.deepEqual(pageErrors, []);
  });

  it('sets a topic config from the topic page, sees it as an override, and removes it again', async () => {
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${gw.url}/#/topics/payments`);
    await page.getByLabel('Bearer token').fill(gw.token.operator);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Signed in as operator-user (operator)').waitFor();
    const row = page
      .getByRole('table', { name: 'Configs' })
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'retention.ms', exact: true }) });
    await row.filter({ hasText: 'default' }).waitFor();

    await page.getByLabel('Config name').fill('retention.ms');
    await page.getByLabel('Value', { exact: true }).fill('3600000');
    await page.getByRole('button', { name: 'Set config' }).click();
    await page.getByRole('status', { name: 'Config change' }).getByText('Set retention.ms = 3600000').waitFor();
    await row.filter({ hasText: 'override' }).waitFor();
    assert.match(await row.innerText(), /3600000\s+override\s+log\.retention\.hours = 168/);
    assert.deepEqual(
      (await api.topicConfigs('payments', { overridesOnly: true })).map((c) => [c.name, c.value]),
      [['retention.ms', '3600000']],
    );

    // Remove it: the demo is as it was.
    await row.getByRole('button', { name: 'Remove override retention.ms' }).click();
    await row.filter({ hasText: 'default' }).waitFor();
    assert.deepEqual(await api.topicConfigs('payments', { overridesOnly: true }), []);
    assert.deepEqual(pageErrors, []);
  });

  it("a viewer who tries to cancel sees the gateway's 403, and nothing is cancelled", async () => {
    const current = (await api.topic('orders')).partitions.find((p) => p.partition === 4)!.replicas;
    const started = await api.startReassignment({
      partitions: [{ topic: 'orders', partition: 4, replicas: [current[0], spareBroker(current)] }],
      throttle: 1024,
    });
    assert.ok('id' in started);
    try {
      const page = await browser.newPage();
      await page.goto(`${gw.url}/#/reassignments/${encodeURIComponent(started.id)}`);
      await page.getByLabel('Bearer token').fill(gw.token.viewer);
      await page.keyboard.press('Enter'); // the form submits from the keyboard
      await page.getByText('Signed in as viewer-user (viewer)').waitFor();
      await page
        .getByText('These actions need the operator role; you are viewer')
        .waitFor()
        .catch(async (err: Error) => {
          // The hint shows only while the reassignment is live: say what it was when it did not.
          // And what the page showed instead (an error from its poll, or nothing loaded).
          const shown = (
            await page
              .locator('main')
              .innerText()
              .catch(() => '(no main)')
          )
            .replace(/\s+/g, ' ')
            .slice(0, 1000);
          throw new Error(
            `${err.message}\nreassignment as the API sees it: ${JSON.stringify(await api.reassignment(started.id))}\npage shows: ${shown}`,
          );
        });
      await page.getByRole('button', { name: 'Cancel reassignment' }).click();
      await page.getByRole('button', { name: 'Confirm cancel' }).click();
      const alert = page.getByRole('alert').filter({ hasText: '403' });
      await alert.waitFor();
      assert.match(await alert.innerText(), /403 Insufficient role: cancelReassignment requires the operator role; viewer-user has viewer/);
      assert.equal((await api.reassignment(started.id)).state, 'running');
    } finally {
      await api.cancelReassignment(started.id);
    }
  });

  it('plans a decommission, starts it paced (one move per broker), pauses, resumes, and watches it complete with the throttle gone', async () => {
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${gw.url}/`);
    await page.getByLabel('Bearer token').fill(gw.token.operator);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Signed in as operator-user (operator)').waitFor();

    // Cluster: plan the decommission of broker 3, then start it from the plan, throttled and paced.
    await page.getByLabel('Goal').selectOption('decommission');
    await page.getByLabel(/^Brokers/).fill('3');
    await page.getByRole('button', { name: 'Plan', exact: true }).click();
    const plan = page.getByRole('status', { name: 'Plan' });
    await plan.getByText('Per broker, before → after the plan').waitFor();
    await plan.getByLabel('Throttle (MiB/s)').fill('4');
    await plan.getByLabel(/^Moves per broker/).fill('1');
    await plan.getByLabel('Order').selectOption('size-desc');
    await plan.getByRole('button', { name: 'Review' }).click();
    const review = page.getByRole('status', { name: 'Review' });
    await review.waitFor();
    assert.match(await review.innerText(), /Paced: \d+ wave\(s\), at most \d+ move\(s\) in flight/);
    await plan.getByRole('button', { name: 'Start move' }).click();

    await page.waitForURL(/#\/reassignments\/r-/);
    const id = decodeURIComponent(page.url().split('/').pop()!);
    const counts = page.getByTestId('counts');
    await counts.waitFor();
    assert.match(await page.getByTestId('pacing').innerText(), /at most 1 move\(s\) per broker; order size-desc/);
    // Several partitions, not all at once: some wait in the queue.
    const started = await api.reassignment(id);
    assert.ok(started.counts.total >= 3, `decommission moves ${started.counts.total} partitions`);
    assert.equal(started.concurrency?.perBroker, 1);
    assert.ok(started.counts.queued > 0, JSON.stringify(started.counts));
    // A bar per moving partition, from the paged endpoint.
    await page.locator('[role="progressbar"][aria-label^="Progress of "]').first().waitFor();

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByTestId('state').locator('.badge', { hasText: 'paused' }).waitFor();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    // Paused: the moves in flight finish and no new one starts, so nothing is moving and the rest still waits.
    await page.waitForFunction(() => / 0 moving,/.test(document.querySelector('[data-testid="counts"]')?.textContent ?? ''), undefined, {
      timeout: 60_000,
    });
    const paused = await api.reassignment(id);
    assert.equal(paused.state, 'paused');
    assert.equal(paused.paused, true);
    assert.ok(paused.counts.queued > 0, JSON.stringify(paused.counts));
    assert.match(await counts.innerText(), new RegExp(`${paused.counts.queued} queued`));

    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    await page.waitForFunction(
      () => document.querySelector('[aria-label="Total progress"]')?.getAttribute('aria-valuenow') === '100',
      undefined,
      { timeout: 120_000 },
    );
    await page.getByTestId('state').locator('.badge', { hasText: 'completed' }).waitFor({ timeout: 30_000 });
    await page.getByTestId('throttle-state').getByText('removed at').waitFor({ timeout: 30_000 });
    const done = await api.reassignment(id);
    assert.deepEqual(
      { ...done.counts },
      { total: done.counts.total, queued: 0, moving: 0, completed: done.counts.total, failed: 0, cancelled: 0 },
    );
    assert.match(await counts.innerText(), new RegExp(`${done.counts.total} completed, 0 failed`));
    assert.deepEqual(await api.throttles(), { rates: [], replicas: [] });
    // The partitions list (paged endpoint) filtered to all: one full bar per partition.
    await page.getByLabel('Show').selectOption('all');
    await page.waitForFunction(
      (n) => document.querySelectorAll('[role="progressbar"][aria-label^="Progress of "][aria-valuenow="100"]').length === n,
      done.counts.total,
    );
    // Broker 3 holds no replica of the topics it was asked to give up.
    for (const t of ['orders', 'payments'])
      for (const p of (await api.topic(t)).partitions) assert.ok(!p.replicas.includes(3), `${t}-${p.partition} still on 3`);
    assert.deepEqual(pageErrors, []);
  });
});
