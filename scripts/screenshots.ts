// `npm run screenshots`: starts a gateway as `npm start` does (embedded cluster with data),
// drives the console in Debian's Chromium (playwright-core) and writes PNGs of the main pages
// to docs/screenshots/ (shown in the README). Needs /usr/bin/chromium (apt-get install chromium).
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createClient } from '../src/client/api.js';
import { startDemoGateway } from '../test/cli/demo-gateway.js';
import { launchChromium } from '../test/console/browser.js';

const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
mkdirSync(OUT, { recursive: true });

const gw = await startDemoGateway();
const browser = await launchChromium();
try {
  const api = createClient({ baseUrl: gw.url, token: gw.token.admin });
  await api.request('PUT', '/quotas', { body: { entity: { clientId: null }, controllerMutationRate: 2 } });
  await api.request('PUT', '/quotas', {
    body: { entity: { user: 'ci-bot', clientId: null }, controllerMutationRate: 20, producerByteRate: 10485760 },
  });
  // A slow, throttled, paced move (one move per broker at a time) to show progress in flight and a queue.
  const orders = (await api.topic('orders')).partitions;
  const moves = [5, 0, 2].map((n) => {
    const current = orders.find((p) => p.partition === n)!.replicas;
    return { topic: 'orders', partition: n, replicas: [current[0], [0, 1, 2, 3].find((b) => !current.includes(b))!] };
  });
  const started = await api.startReassignment({
    partitions: moves,
    throttle: 1024 * 1024,
    concurrency: { perBroker: 1, cluster: 1 },
    order: 'as-given',
  });
  if (!('id' in started)) throw new Error('the move did not start');

  const page = await browser.newPage({ viewport: { width: 1100, height: 640 }, deviceScaleFactor: 1 });
  await page.goto(`${gw.url}/`);
  await page.getByLabel('Bearer token').fill(gw.token.admin);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('Signed in as admin-user (admin)').waitFor();

  const shot = async (name: string, ready: () => Promise<unknown>) => {
    await ready();
    await page.screenshot({ path: `${OUT}${name}.png` });
    process.stdout.write(`docs/screenshots/${name}.png\n`);
  };
  await shot('cluster', () =>
    page
      .getByRole('heading', { name: 'Cluster and brokers' })
      .waitFor()
      .then(() => page.getByText('(controller)').waitFor()),
  );
  await page.goto(`${gw.url}/#/topics/orders`);
  await page.getByLabel('Partition').selectOption('1');
  const p1 = (await api.topic('orders')).partitions.find((p) => p.partition === 1)!.replicas;
  await page.getByLabel('Target replicas').fill([p1[0], [0, 1, 2, 3].find((b) => !p1.includes(b))!].join(','));
  await page.getByRole('button', { name: 'Review' }).click();
  await shot('move-review', async () => {
    const review = page.getByRole('status', { name: 'Review' });
    await review.waitFor();
    await page.evaluate(() => document.querySelector('[aria-label="Review"]')?.scrollIntoView({ block: 'end' }));
  });
  await page.goto(`${gw.url}/#/reassignments/${encodeURIComponent(started.id)}`);
  await shot('reassignment', () =>
    page.waitForFunction(
      () =>
        Number(document.querySelector('[aria-label="Total progress"]')?.getAttribute('aria-valuenow')) > 5 &&
        document.querySelector('[role="progressbar"][aria-label^="Progress of orders-"]') !== null,
    ),
  );
  await page.goto(`${gw.url}/#/reassignments`);
  await shot('reassignments', () => page.getByRole('progressbar').first().waitFor());
  await page.goto(`${gw.url}/#/throttles`);
  await shot('throttles', () => page.getByRole('link', { name: started.id }).first().waitFor());
  await page.goto(`${gw.url}/#/quotas`);
  await shot('quotas', () => page.getByText('ci-bot').waitFor());
  await api.cancelReassignment(started.id);
} finally {
  await browser.close();
  await gw.stop();
}
