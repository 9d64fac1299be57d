// Renders every overlay with `kubectl kustomize` and checks each object against the Kubernetes
// (and ECK) schemas and the project's policies. No cluster needed; skipped, saying so, without kubectl.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { kubectlAvailable, parseObjects, renderOverlay, type K8sObject } from './render.ts';
import { isPinnedImage, policyViolations } from './policy.ts';
import { schemaErrors, validateSchemas } from './schemas.ts';

const overlayDir = (name: string) => join(import.meta.dirname, '..', 'overlays', name);
const hasKubectl = await kubectlAvailable();
const renders = new Map<string, Promise<K8sObject[]>>();
/** Each overlay is rendered once per run (kubectl takes a second or two on a busy machine). */
const rendered = (name: string): Promise<K8sObject[]> => {
  let render = renders.get(name);
  if (!render) renders.set(name, (render = renderOverlay(overlayDir(name))));
  return render;
};
if (!hasKubectl)
  console.warn('[k8s] kubectl not found: skipping the render and validation of infra/k8s/overlays (install kubectl to run them)');

const byKind = (objects: readonly K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const named = (objects: readonly K8sObject[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name);
const SERVICES = ['gateway', 'catalogue', 'auth', 'mcp', 'worker'];

describe.skipIf(!hasKubectl).each(['dev', 'prod'])('overlay %s', (overlay) => {
  let objects: K8sObject[] = [];
  beforeAll(async () => {
    objects = await rendered(overlay);
  });

  it('renders a Deployment, Service, HPA and PDB per service, Redis with Sentinel, ECK Elasticsearch and the ingest Job', () => {
    for (const name of SERVICES) {
      for (const kind of ['Deployment', 'Service', 'HorizontalPodAutoscaler', 'PodDisruptionBudget']) {
        expect(named(objects, kind, name), `${kind}/${name}`).toBeDefined();
      }
    }
    const redis = named(objects, 'StatefulSet', 'redis');
    const redisContainers = (redis?.spec as { template: { spec: { containers: { name: string }[] } } }).template.spec.containers;
    expect(redisContainers.map((c) => c.name)).toEqual(['redis', 'sentinel']);
    expect(named(objects, 'Elasticsearch', 'fragrance')).toBeDefined();
    expect(named(objects, 'Job', 'catalogue-ingest')).toBeDefined();
    expect(byKind(objects, 'NetworkPolicy').length).toBeGreaterThan(0);
  });

  it('validates every object against the Kubernetes API and ECK schemas', async () => {
    expect(await validateSchemas(objects)).toEqual([]);
  });

  it('meets the project policies', () => {
    expect(policyViolations(objects)).toEqual([]);
  });

  it('puts everything in the overlay namespace', () => {
    const namespace = overlay === 'prod' ? 'fragrance' : 'fragrance-dev';
    for (const object of objects.filter((o) => o.kind !== 'Namespace')) expect(object.metadata.namespace).toBe(namespace);
  });
});

describe.skipIf(!hasKubectl)('overlay differences', () => {
  it('dev carries demo Secrets and the demo catalogue; prod has neither and pins every image to a release', async () => {
    const [dev, prod] = await Promise.all([rendered('dev'), rendered('prod')]);
    expect(byKind(dev, 'Secret').length).toBe(1);
    expect(JSON.stringify(named(dev, 'Job', 'catalogue-ingest'))).toContain('"generate"');
    expect(byKind(prod, 'Secret')).toEqual([]);
    expect(JSON.stringify(prod)).not.toMatch(/"generate"|dev-only|demo/i);
    expect(named(prod, 'Elasticsearch', 'fragrance')?.spec).toMatchObject({ nodeSets: [{ count: 3 }] });
    const images = JSON.stringify(prod).match(/"image":"[^"]+"/g) ?? [];
    expect(images.length).toBeGreaterThan(0);
    for (const image of images.filter((i) => i.includes('fragrance/')))
      expect(image).toMatch(/registry\.fragrance\.example\/fragrance\/[a-z]+:\d+\.\d+\.\d+-/);
  });
});

// The checks themselves, on small objects: each must be able to fail.
const deployment = (container: Record<string, unknown>): K8sObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'svc' },
  spec: {
    selector: { matchLabels: { 'app.kubernetes.io/name': 'svc' } },
    template: {
      metadata: { labels: { 'app.kubernetes.io/name': 'svc' } },
      spec: { securityContext: { runAsNonRoot: true, runAsUser: 1000 }, containers: [{ name: 'svc', ...container }] },
    },
  },
});
const compliantContainer = {
  image: 'registry.example/svc:1.2.3',
  readinessProbe: { httpGet: { path: '/health/ready', port: 8080 } },
  livenessProbe: { httpGet: { path: '/health/live', port: 8080 } },
  resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '256Mi' } },
  securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
};

describe('policy checks', () => {
  const wanted = (messages: string[], pattern: RegExp) =>
    expect(
      messages.some((m) => pattern.test(m)),
      messages.join('\n'),
    ).toBe(true);

  it('flag a container without probes, limits, non-root, read-only root or a pinned tag', () => {
    const bare = policyViolations([deployment({ image: 'registry.example/svc:latest' })]);
    for (const pattern of [
      /no pinned tag/,
      /no readinessProbe/,
      /no livenessProbe/,
      /no cpu limits/,
      /no memory requests/,
      /read-only/,
      /escalation/,
      /capabilities/,
    ]) {
      wanted(bare, pattern);
    }
    const root = deployment({ ...compliantContainer, securityContext: { ...compliantContainer.securityContext, runAsUser: 0 } });
    wanted(policyViolations([root]), /non-root/);
  });

  it('flag a Deployment without an HPA or a PDB, and accept one with both', () => {
    const alone = policyViolations([deployment(compliantContainer)]);
    wanted(alone, /no HorizontalPodAutoscaler/);
    wanted(alone, /no PodDisruptionBudget/);
    const hpa: K8sObject = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'svc' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'svc' } },
    };
    const pdb: K8sObject = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'svc' },
      spec: { selector: { matchLabels: { 'app.kubernetes.io/name': 'svc' } } },
    };
    const scaled = policyViolations([deployment(compliantContainer), hpa, pdb]);
    expect(scaled.filter((m) => m.startsWith('Deployment/'))).toEqual([]);
  });

  it('flag a missing Ingress route, a missing default deny and an internal service opened to the outside', () => {
    const open: K8sObject = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'catalogue-open' },
      spec: {
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'catalogue' } },
        ingress: [{ from: [{ ipBlock: { cidr: '0.0.0.0/0' } }] }],
      },
    };
    const messages = policyViolations([open]);
    wanted(messages, /no Ingress/);
    wanted(messages, /no default-deny/);
    wanted(messages, /catalogue-open: admits traffic from outside/);
  });

  it('flag an Ingress that publishes /metrics (a Prefix `/` would) and one without the home page and /docs', () => {
    const ingress = (paths: { path: string; pathType: string }[]): K8sObject => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'edge' },
      spec: {
        rules: [{ http: { paths: paths.map((p) => ({ ...p, backend: { service: { name: 'gateway', port: { name: 'http' } } } })) } }],
      },
    });
    const gateway: K8sObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'gateway' }, spec: {} };
    const everything = policyViolations([gateway, ingress([{ path: '/', pathType: 'Prefix' }])]);
    wanted(everything, /Ingress: Prefix \/ publishes the internal \/metrics/);
    wanted(everything, /Ingress: no route for \/docs/);
    const metrics = policyViolations([gateway, ingress([{ path: '/metrics', pathType: 'Exact' }])]);
    wanted(metrics, /Ingress: Exact \/metrics publishes the internal \/metrics/);
    wanted(metrics, /Ingress: no route for \/$/);
    const ingressMessages = (objects: K8sObject[]) => policyViolations(objects).filter((m) => m.startsWith('Ingress'));
    const fine = ['/v1', '/oauth', '/.well-known', '/mcp', '/docs'].map((path) => ({ path, pathType: 'Prefix' }));
    expect(ingressMessages([gateway, ingress([{ path: '/', pathType: 'Exact' }, ...fine])])).toEqual([]);
  });

  it('tell pinned image references from floating ones', () => {
    expect(isPinnedImage('registry.example:5000/fragrance/gateway:0.1.0-abc')).toBe(true);
    expect(isPinnedImage(`fragrance/gateway@sha256:${'a'.repeat(64)}`)).toBe(true);
    expect(isPinnedImage('registry.example:5000/fragrance/gateway')).toBe(false);
    expect(isPinnedImage('fragrance/gateway:latest')).toBe(false);
  });
});

describe('schema checks', () => {
  it('reject a wrongly typed field and an object without a schema', async () => {
    const [wrong] = parseObjects(
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: x }\nspec: { replicas: two, selector: {}, template: {} }\n',
    );
    expect((await schemaErrors(wrong!)).join()).toMatch(/replicas must be integer/);
    const [unknown] = parseObjects('apiVersion: example.com/v1\nkind: Widget\nmetadata: { name: w }\n');
    expect(await schemaErrors(unknown!)).toEqual(['Widget/w: no schema for example.com/v1 Widget']);
  });

  it('reject an ECK Elasticsearch with a wrongly typed node count', async () => {
    const [es] = parseObjects(
      'apiVersion: elasticsearch.k8s.elastic.co/v1\nkind: Elasticsearch\nmetadata: { name: e }\nspec: { version: 8.19.21, nodeSets: [{ name: a, count: three }] }\n',
    );
    expect((await schemaErrors(es!)).join()).toMatch(/count must be integer/);
  });
});
