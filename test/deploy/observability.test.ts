// deploy/: the Grafana dashboard and the Prometheus alert rules may only reference metrics
// the gateway really exports (read from the /metrics of a gateway running as `npm start`
// runs it), and the rules pass `promtool check rules` and their `promtool test rules` unit
// tests. promtool comes from Debian's `prometheus` package (.ci/run installs it); without it
// the promtool tests are skipped locally, but never in CI.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { spawnGateway, type GatewayProcess } from '../http/gateway-process.js';
import { httpGet } from '../http/http-get.js';

const run = promisify(execFile);
const root = (p: string) => fileURLToPath(new URL(`../../${p}`, import.meta.url));
const RULES = root('deploy/prometheus/kafka-admin-gateway.rules.yml');
const RULE_TESTS_DIR = root('deploy/prometheus/tests');
const DASHBOARD = root('deploy/grafana/kafka-admin-gateway.json');

/** Series names a /metrics page can produce: every # TYPE family, plus a histogram's/summary's suffixed series. */
export function exportedSeries(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const m = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (!m) continue;
    const [, name, type] = m as unknown as [string, string, string];
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return names;
}

/** Every gateway metric name an expression uses (the gateway's names all start with kafka_gateway_). */
export function referencedMetrics(expr: string): string[] {
  return [...new Set(expr.match(/\bkafka_gateway_[a-zA-Z0-9_]+/g) ?? [])];
}

interface Panel {
  title?: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}
function dashboardExprs(): { where: string; expr: string }[] {
  const doc = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    panels: Panel[];
    templating?: { list: { name: string; query?: unknown; definition?: string }[] };
  };
  const out: { where: string; expr: string }[] = [];
  const walk = (ps: Panel[]) => {
    for (const p of ps) {
      for (const t of p.targets ?? []) if (t.expr) out.push({ where: `panel "${p.title}"`, expr: t.expr });
      if (p.panels) walk(p.panels);
    }
  };
  walk(doc.panels);
  for (const v of doc.templating?.list ?? []) if (v.definition) out.push({ where: `variable ${v.name}`, expr: v.definition });
  return out;
}
function ruleExprs(): { where: string; expr: string }[] {
  const doc = parse(readFileSync(RULES, 'utf8')) as { groups: { rules: { alert?: string; record?: string; expr: string }[] }[] };
  return doc.groups.flatMap((g) => g.rules.map((r) => ({ where: `rule ${r.alert ?? r.record}`, expr: r.expr })));
}

describe("deploy/: dashboard and alert rules against the gateway's real /metrics", () => {
  let gw: GatewayProcess;
  let exported: Set<string>;

  before(async () => {
    gw = spawnGateway({ RECONCILE_INTERVAL_MS: '200' });
    const url = await gw.url;
    const res = await httpGet(`${url}/metrics`);
    assert.equal(res.status, 200);
    exported = exportedSeries(res.body);
  });
  after(async () => {
    gw.child.kill('SIGTERM');
    await gw.exited;
  });

  it('the exposition is parsed (sanity: known families and histogram series are there)', () => {
    for (const name of [
      'kafka_gateway_http_requests_total',
      'kafka_gateway_http_request_duration_seconds_bucket',
      'kafka_gateway_reconciler_last_success_timestamp_seconds',
      'kafka_gateway_nodejs_eventloop_lag_p99_seconds',
    ]) {
      assert.ok(exported.has(name), `${name} missing from /metrics`);
    }
    assert.ok(!exported.has('kafka_gateway_no_such_metric'));
  });

  it('every dashboard query uses only exported metrics, and every query uses one', () => {
    const exprs = dashboardExprs();
    assert.ok(exprs.length >= 20, `only ${exprs.length} queries found`);
    const unknown = exprs.flatMap(({ where, expr }) =>
      referencedMetrics(expr)
        .filter((m) => !exported.has(m))
        .map((m) => `${where}: ${m}`),
    );
    assert.deepEqual(unknown, []);
    const none = exprs.filter(({ expr }) => referencedMetrics(expr).length === 0).map((e) => e.where);
    assert.deepEqual(none, []);
  });

  it('every alert rule uses only exported metrics, and the required alerts exist', () => {
    const exprs = ruleExprs();
    const unknown = exprs.flatMap(({ where, expr }) =>
      referencedMetrics(expr)
        .filter((m) => !exported.has(m))
        .map((m) => `${where}: ${m}`),
    );
    assert.deepEqual(unknown, []);
    const names = exprs.map((e) => e.where);
    for (const a of [
      'KafkaGatewayReconcilerNotSucceeding',
      'KafkaGatewayReassignmentStalled',
      'KafkaGatewayThrottleOutlivedReassignment',
      'KafkaGatewayHighErrorRatio',
      'KafkaGatewayEventLoopLag',
      'KafkaGatewayStateTopicUnavailable',
      'KafkaGatewayStateWriteFenced',
      'KafkaGatewayReassignmentHeld',
    ]) {
      assert.ok(names.includes(`rule ${a}`), `alert ${a} missing`);
    }
  });

  it('the checker catches a metric the gateway does not export', () => {
    const bogus = referencedMetrics('rate(kafka_gateway_http_requests_total[5m]) / kafka_gateway_made_up_total').filter(
      (m) => !exported.has(m),
    );
    assert.deepEqual(bogus, ['kafka_gateway_made_up_total']);
  });
});

const promtool = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));
const skipPromtool = promtool ? false : process.env.CI ? false : 'promtool not installed (apt-get install prometheus); CI installs it';

describe('promtool', { skip: skipPromtool }, () => {
  it('is installed (CI must run these tests)', () => {
    assert.ok(promtool, 'promtool missing: .ci/run must apt-get install prometheus');
  });

  it('check rules', async () => {
    const { stdout } = await run(promtool!, ['check', 'rules', RULES]);
    assert.match(stdout, new RegExp(`SUCCESS: ${ruleExprs().length} rules found`));
  });

  it('test rules (every alert fires when it should and stays quiet when it should not)', async () => {
    const files = readdirSync(RULE_TESTS_DIR)
      .filter((f) => f.endsWith('.test.yml'))
      .map((f) => `${RULE_TESTS_DIR}/${f}`);
    assert.ok(files.length > 0);
    const { stdout } = await run(promtool!, ['test', 'rules', ...files]);
    assert.match(stdout, /SUCCESS/);
    assert.doesNotMatch(stdout, /FAILED/);
  });
});
