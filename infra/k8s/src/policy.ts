// The project's own rules for what it deploys, beyond what the API schemas say (docs/deployment.md):
// every container is bounded (requests and limits), unprivileged (non-root, read-only root
// filesystem, no privilege escalation, all capabilities dropped) and runs a pinned image tag;
// every long-running container has readiness and liveness probes; every Deployment has an HPA and
// a PDB; the Ingress routes the public paths to an existing Service; only the edge is public.
import { describeObject, type K8sObject } from './render.ts';

/** The fields of a container the policy reads (the schemas have checked their types). */
interface Container {
  name: string;
  image?: string;
  readinessProbe?: unknown;
  livenessProbe?: unknown;
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[] };
  };
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
}
interface PodTemplate {
  metadata?: { labels?: Record<string, string> };
  spec: PodSpec;
}
type Labels = Record<string, string>;

const LONG_RUNNING = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);
const WITH_POD_TEMPLATE = new Set([...LONG_RUNNING, 'Job']);

/** The paths the edge serves publicly and must be routed by the Ingress. */
export const PUBLIC_PATHS = ['/', '/docs', '/v1', '/oauth', '/.well-known', '/mcp'] as const;
/** Paths the edge serves that must stay inside the cluster (scraped or probed there, never public). */
export const INTERNAL_PATHS = ['/metrics'] as const;

const spec = (object: K8sObject): Record<string, unknown> => (object.spec ?? {}) as Record<string, unknown>;

function podTemplateOf(object: K8sObject): PodTemplate | undefined {
  if (!WITH_POD_TEMPLATE.has(object.kind)) return undefined;
  return spec(object).template as PodTemplate | undefined;
}

const matches = (selector: Labels | undefined, labels: Labels | undefined): boolean =>
  selector !== undefined && Object.entries(selector).every(([key, value]) => labels?.[key] === value);

/** A tag other than `latest`, or a digest. */
export function isPinnedImage(image: string | undefined): boolean {
  if (!image) return false;
  if (/@sha256:[0-9a-f]{64}$/.test(image)) return true;
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastSegment.indexOf(':');
  return colon > 0 && lastSegment.slice(colon + 1) !== 'latest' && lastSegment.slice(colon + 1) !== '';
}

function containerViolations(owner: string, pod: PodSpec, container: Container, longRunning: boolean): string[] {
  const where = `${owner} container ${container.name}`;
  const out: string[] = [];
  if (!isPinnedImage(container.image)) out.push(`${where}: image "${container.image ?? ''}" has no pinned tag (or uses latest)`);
  if (longRunning && !container.readinessProbe) out.push(`${where}: no readinessProbe`);
  if (longRunning && !container.livenessProbe) out.push(`${where}: no livenessProbe`);
  for (const kind of ['requests', 'limits'] as const) {
    for (const resource of ['cpu', 'memory']) {
      if (container.resources?.[kind]?.[resource] === undefined) out.push(`${where}: no ${resource} ${kind}`);
    }
  }
  const security = container.securityContext ?? {};
  const nonRoot = security.runAsNonRoot ?? pod.securityContext?.runAsNonRoot;
  const uid = security.runAsUser ?? pod.securityContext?.runAsUser;
  if (nonRoot !== true || uid === 0) out.push(`${where}: not forced to run as non-root (runAsNonRoot: true, runAsUser ≠ 0)`);
  if (security.readOnlyRootFilesystem !== true) out.push(`${where}: root filesystem not read-only`);
  if (security.allowPrivilegeEscalation !== false) out.push(`${where}: privilege escalation not disabled`);
  if (!security.capabilities?.drop?.includes('ALL')) out.push(`${where}: capabilities not dropped (drop: [ALL])`);
  return out;
}

/** Every container of every workload. */
function workloadViolations(objects: readonly K8sObject[]): string[] {
  return objects.flatMap((object) => {
    const template = podTemplateOf(object);
    if (!template) return [];
    const longRunning = LONG_RUNNING.has(object.kind);
    const pod = template.spec;
    return [
      ...pod.containers.map((c) => containerViolations(describeObject(object), pod, c, longRunning)),
      ...(pod.initContainers ?? []).map((c) => containerViolations(describeObject(object), pod, c, false)),
    ].flat();
  });
}

/** Every Deployment (the HTTP services and the worker) scales with an HPA and is guarded by a PDB. */
function scalingViolations(objects: readonly K8sObject[]): string[] {
  const hpas = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler');
  const pdbs = objects.filter((o) => o.kind === 'PodDisruptionBudget');
  return objects
    .filter((o) => o.kind === 'Deployment')
    .flatMap((deployment) => {
      const labels = podTemplateOf(deployment)?.metadata?.labels;
      const out: string[] = [];
      const scaled = hpas.some((hpa) => {
        const target = spec(hpa).scaleTargetRef as { kind?: string; name?: string } | undefined;
        return target?.kind === 'Deployment' && target.name === deployment.metadata.name;
      });
      if (!scaled) out.push(`${describeObject(deployment)}: no HorizontalPodAutoscaler targets it`);
      const guarded = pdbs.some((pdb) => matches((spec(pdb).selector as { matchLabels?: Labels } | undefined)?.matchLabels, labels));
      if (!guarded) out.push(`${describeObject(deployment)}: no PodDisruptionBudget selects its pods`);
      return out;
    });
}

interface IngressPath {
  path?: string;
  pathType?: string;
  backend?: { service?: { name?: string } };
}

/** The Ingress routes every public path to a Service that exists. */
function ingressViolations(objects: readonly K8sObject[]): string[] {
  const services = new Set(objects.filter((o) => o.kind === 'Service').map((o) => o.metadata.name));
  const ingresses = objects.filter((o) => o.kind === 'Ingress');
  if (ingresses.length === 0) return ['no Ingress'];
  const routes = ingresses.flatMap((ingress) =>
    ((spec(ingress).rules ?? []) as { http?: { paths?: IngressPath[] } }[]).flatMap((rule) => rule.http?.paths ?? []),
  );
  const out: string[] = [];
  for (const path of PUBLIC_PATHS) {
    const route = routes.find((r) => r.path === path);
    if (!route) out.push(`Ingress: no route for ${path}`);
    else if (!services.has(route.backend?.service?.name ?? '')) out.push(`Ingress: ${path} goes to a Service that does not exist`);
  }
  for (const internal of INTERNAL_PATHS) {
    // Prefix matching is by whole path segments; Exact and ImplementationSpecific taken literally.
    const exposing = routes.find((r) =>
      r.pathType === 'Prefix'
        ? r.path === '/' || internal === r.path || internal.startsWith(`${(r.path ?? '').replace(/\/+$/, '')}/`)
        : r.path === internal,
    );
    if (exposing) out.push(`Ingress: ${exposing.pathType ?? ''} ${exposing.path ?? ''} publishes the internal ${internal}`);
  }
  return out;
}

interface PolicyPeer {
  podSelector?: unknown;
  namespaceSelector?: { matchLabels?: Labels };
  ipBlock?: unknown;
}

/**
 * Only the edge is public: a default-deny policy selects every pod, and a rule admitting traffic
 * from outside the namespace (an ipBlock, the ingress controller's namespace, or no `from` at all)
 * selects only the gateway. Prometheus' namespace (monitoring) may reach metrics ports only.
 */
function networkViolations(objects: readonly K8sObject[]): string[] {
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  const out: string[] = [];
  const denyAll = policies.some((p) => {
    const s = spec(p) as { podSelector?: { matchLabels?: Labels }; policyTypes?: string[]; ingress?: unknown[] };
    return Object.keys(s.podSelector?.matchLabels ?? {}).length === 0 && s.policyTypes?.includes('Ingress') && !s.ingress?.length;
  });
  if (!denyAll) out.push('NetworkPolicy: no default-deny policy selecting every pod');
  for (const policy of policies) {
    const s = spec(policy) as { podSelector?: { matchLabels?: Labels }; ingress?: { from?: PolicyPeer[]; ports?: { port?: unknown }[] }[] };
    const selectsOnlyGateway = s.podSelector?.matchLabels?.['app.kubernetes.io/name'] === 'gateway';
    for (const rule of s.ingress ?? []) {
      const peers = rule.from ?? [];
      const fromOutside =
        peers.length === 0 ||
        peers.some((peer) => peer.ipBlock !== undefined || (peer.namespaceSelector !== undefined && peer.podSelector === undefined));
      if (!fromOutside) continue;
      const onlyScrapes = peers.every((peer) => peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'monitoring');
      const scrapePortsOnly = (rule.ports ?? []).length > 0 && (rule.ports ?? []).every((p) => p.port === 9464);
      const operatorOnly = peers.every((peer) => peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'elastic-system');
      if (selectsOnlyGateway || (onlyScrapes && scrapePortsOnly) || operatorOnly) continue;
      out.push(`${describeObject(policy)}: admits traffic from outside the namespace to pods other than the gateway`);
    }
  }
  return out;
}

/** Every policy violation of a rendered overlay (empty when it complies). */
export function policyViolations(objects: readonly K8sObject[]): string[] {
  return [...workloadViolations(objects), ...scalingViolations(objects), ...ingressViolations(objects), ...networkViolations(objects)];
}
