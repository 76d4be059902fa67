// deploy/kubernetes: every manifest is checked against the Kubernetes API schemas
// (kubernetes-models: the OpenAPI schemas of the Kubernetes API and of the Prometheus
// Operator's CRDs, applied with ajv — the same check kubeconform makes, without a cluster;
// neither kubeconform nor helm is available from npm or Debian here), and against the
// gateway itself: probe paths that exist and need no token, ports and selectors that meet,
// a grace period longer than the shutdown drain, documented environment variables only,
// and a tokens Secret the gateway's own parser accepts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, parse } from 'yaml';
import { ConfigMap, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { parseTokenDocument } from '../../src/http/auth/tokens.js';

const DIR = 'deploy/kubernetes';

type Obj = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; [k: string]: any };

const MODELS: Record<string, new (o: any) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
};

function load(): { file: string; obj: Obj }[] {
  const out: { file: string; obj: Obj }[] = [];
  for (const file of readdirSync(DIR)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .sort()) {
    for (const doc of parseAllDocuments(readFileSync(join(DIR, file), 'utf8'))) {
      assert.deepEqual(doc.errors, [], `${file}: YAML errors`);
      const obj = doc.toJS() as Obj | null;
      if (obj) out.push({ file, obj });
    }
  }
  return out;
}

function validate(obj: Obj): void {
  const Model = MODELS[`${obj.apiVersion}/${obj.kind}`];
  assert.ok(Model, `no schema for ${obj.apiVersion} ${obj.kind}`);
  new Model(obj).validate();
}

const all = load();
const one = (kind: string, name?: string): Obj => {
  const found = all.filter((d) => d.obj.kind === kind && (!name || d.obj.metadata.name === name));
  assert.equal(found.length, 1, `${kind} ${name ?? ''}`);
  return found[0].obj;
};
const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

test('every manifest is valid against the Kubernetes (and Prometheus Operator) API schemas', () => {
  assert.ok(all.length >= 8, `found ${all.length} objects`);
  for (const { file, obj } of all) {
    assert.doesNotThrow(() => validate(obj), `${file}: ${obj.kind} ${obj.metadata?.name}`);
  }
});

test('the schema check catches a broken manifest (it can fail)', () => {
  const deployment = structuredClone(one('Deployment'));
  deployment.spec.replicas = 'two';
  assert.throws(() => validate(deployment));
  const pdb = structuredClone(one('PodDisruptionBudget'));
  pdb.spec.minAvailable = { nope: 1 };
  assert.throws(() => validate(pdb));
  const monitor = structuredClone(one('ServiceMonitor'));
  monitor.spec.endpoints[0].interval = 30;
  assert.throws(() => validate(monitor));
});

const kustomization = () =>
  parse(readFileSync(join(DIR, 'kustomization.yaml'), 'utf8')) as { resources: string[]; secretGenerator?: unknown };

test('kustomization.yaml lists every manifest but the CRD-dependent ServiceMonitor and the Secret examples', () => {
  const files = readdirSync(DIR).filter(
    (f) => f.endsWith('.yaml') && !['kustomization.yaml', 'servicemonitor.yaml', 'secret.example.yaml'].includes(f),
  );
  assert.deepEqual([...kustomization().resources].sort(), files.sort());
});

// `kubectl apply -k` after `kubectl create secret` (as the README says) must not replace the
// real Secrets with placeholders: no Secret is rendered, from a file or a generator.
test('no Secret is rendered by the kustomization (the real ones are created with kubectl)', () => {
  const k = kustomization();
  assert.equal(k.secretGenerator, undefined);
  const secretsIn = (file: string) => all.filter((d) => d.file === file && d.obj.kind === 'Secret').map((d) => d.obj.metadata.name);
  assert.deepEqual(k.resources.flatMap(secretsIn), []);
  // The ServiceMonitor's file is applied on its own (`kubectl apply -f`): the same footgun.
  assert.deepEqual(secretsIn('servicemonitor.yaml'), []);
  // The check above can fail: the example file holds the placeholders it keeps out.
  assert.ok(secretsIn('secret.example.yaml').includes('kafka-admin-gateway-tokens'));
});

const KUBECTL = ['/usr/bin/kubectl', '/usr/local/bin/kubectl'].find((p) => existsSync(p));
test(
  '`kubectl kustomize deploy/kubernetes` renders no Secret',
  { skip: KUBECTL ? false : 'no kubectl (the check above reads the same files)' },
  () => {
    const rendered = parseAllDocuments(execFileSync(KUBECTL!, ['kustomize', DIR], { encoding: 'utf8' })).map((d) => d.toJS() as Obj);
    assert.ok(
      rendered.some((o) => o.kind === 'Deployment'),
      'the render holds the Deployment',
    );
    assert.deepEqual(
      rendered.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name),
      [],
    );
  },
);

test('a preStop sleep covers the readiness window, and preStop + drain fit in the grace period', () => {
  const pod = one('Deployment').spec.template.spec;
  const c = pod.containers[0];
  const cmd: string[] = c.lifecycle?.preStop?.exec?.command ?? [];
  assert.equal(cmd[0], 'sleep', `preStop: ${JSON.stringify(c.lifecycle)}`);
  const sleepSeconds = Number(cmd[1]);
  const readinessWindow = c.readinessProbe.periodSeconds * c.readinessProbe.failureThreshold;
  assert.equal(sleepSeconds, readinessWindow, 'the sleep is the time a /readyz-polling balancer needs to stop routing here');
  const drainSeconds = Number(one('ConfigMap').data.SHUTDOWN_TIMEOUT_MS) / 1000;
  // The grace period counts from the start of preStop; keep room to close Kafka and exit.
  assert.ok(
    sleepSeconds + drainSeconds + 5 <= pod.terminationGracePeriodSeconds,
    `${sleepSeconds} + ${drainSeconds} + 5 > ${pod.terminationGracePeriodSeconds}`,
  );
});

test('two replicas, probes on the public /healthz and /readyz, resources, a PDB that selects them', () => {
  const d = one('Deployment');
  assert.equal(d.spec.replicas, 2);
  const podLabels = d.spec.template.metadata.labels;
  assert.ok(matches(d.spec.selector.matchLabels, podLabels));
  const c = d.spec.template.spec.containers[0];
  assert.equal(c.livenessProbe.httpGet.path, '/healthz');
  assert.equal(c.readinessProbe.httpGet.path, '/readyz');
  // Both paths exist in the contract and are public (a probe sends no token).
  const spec = parse(readFileSync('openapi.yaml', 'utf8')) as { paths: Record<string, { get?: Record<string, unknown> }> };
  for (const path of ['/healthz', '/readyz']) {
    assert.equal(spec.paths[path]?.get?.['x-required-role'], 'public', path);
  }
  for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) {
    assert.ok(
      c.ports.some((p: { name: string }) => p.name === probe.httpGet.port),
      'probe port is a named container port',
    );
  }
  assert.ok(c.resources.requests.cpu && c.resources.requests.memory && c.resources.limits.memory);
  const pdb = one('PodDisruptionBudget');
  assert.ok(matches(pdb.spec.selector.matchLabels, podLabels));
  assert.ok(pdb.spec.minAvailable < d.spec.replicas, 'a PDB that allows no disruption blocks node drains');
});

test('Service and ServiceMonitor reach the pods; /metrics is scraped with a bearer token', () => {
  const d = one('Deployment');
  const podLabels = d.spec.template.metadata.labels;
  const containerPort = d.spec.template.spec.containers[0].ports.find((p: { name: string }) => p.name === 'http');
  const svc = one('Service');
  assert.ok(matches(svc.spec.selector, podLabels));
  const port = svc.spec.ports.find((p: { name: string }) => p.name === 'http');
  assert.equal(port.targetPort, containerPort.name);
  const sm = one('ServiceMonitor');
  assert.ok(matches(sm.spec.selector.matchLabels, svc.metadata.labels));
  const ep = sm.spec.endpoints[0];
  assert.equal(ep.port, 'http');
  assert.equal(ep.path, '/metrics');
  const spec = parse(readFileSync('openapi.yaml', 'utf8')) as { paths: Record<string, { get?: Record<string, unknown> }> };
  assert.equal(spec.paths['/metrics']?.get?.['x-required-role'], 'viewer', '/metrics needs a token');
  const tokenSecret = one('Secret', ep.authorization.credentials.name);
  assert.ok(ep.authorization.credentials.key in tokenSecret.stringData);
});

test('the grace period outlasts the shutdown drain; secrets and mounts meet; env vars are documented', () => {
  const d = one('Deployment');
  const pod = d.spec.template.spec;
  const c = pod.containers[0];
  const cm = one('ConfigMap');
  assert.ok(pod.terminationGracePeriodSeconds * 1000 > Number(cm.data.SHUTDOWN_TIMEOUT_MS));
  // The Secrets referred to below are the examples (secret.example.yaml): the shape the real
  // ones, created with kubectl, must have.

  // Every variable set is one the configuration reference documents (a typo would be silently ignored).
  const reference = readFileSync('docs/configuration.md', 'utf8');
  const names = [...Object.keys(cm.data), ...c.env.map((e: { name: string }) => e.name)];
  for (const name of names) assert.ok(reference.includes('`' + name + '`'), `${name} is not in docs/configuration.md's table`);

  // secretKeyRefs name secrets and keys that exist.
  for (const e of c.env.filter((x: any) => x.valueFrom?.secretKeyRef)) {
    const ref = e.valueFrom.secretKeyRef;
    assert.ok(ref.key in one('Secret', ref.name).stringData, `${e.name}`);
  }
  // Files named in the config lie on mounted Secret volumes that hold them.
  for (const key of ['GATEWAY_TOKENS_FILE', 'KAFKA_TLS_CA_FILE']) {
    const file: string = cm.data[key];
    const mount = c.volumeMounts.find((m: { mountPath: string }) => file.startsWith(m.mountPath + '/'));
    assert.ok(mount, `${key}: ${file} is on no mount`);
    const volume = pod.volumes.find((v: { name: string }) => v.name === mount.name);
    const secret = one('Secret', volume.secret.secretName);
    assert.ok(file.slice(mount.mountPath.length + 1) in secret.stringData, `${key}: the Secret has no ${file}`);
  }
  // The tokens Secret is in the gateway's format, with the viewer token Prometheus uses.
  const tokensFile = one('Secret', 'kafka-admin-gateway-tokens').stringData['tokens.yaml'];
  const entries = parseTokenDocument(tokensFile, 'tokens.yaml');
  assert.ok(entries.some((e) => e.name === 'prometheus' && e.role === 'viewer'));
});

test('the pod runs unprivileged with a read-only root filesystem', () => {
  const pod = one('Deployment').spec.template.spec;
  const c = pod.containers[0];
  assert.equal(pod.securityContext.runAsNonRoot, true);
  assert.equal(c.securityContext.readOnlyRootFilesystem, true);
  assert.equal(c.securityContext.allowPrivilegeEscalation, false);
  assert.deepEqual(c.securityContext.capabilities.drop, ['ALL']);
  assert.equal(pod.automountServiceAccountToken, false);
});
