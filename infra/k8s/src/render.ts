// Renders a kustomize overlay with `kubectl kustomize` into plain objects.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';

const run = promisify(execFile);

/** One rendered Kubernetes object; only the fields every object has are typed. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** Whether `kubectl` runs here (the tests skip, saying so, when it does not). */
export async function kubectlAvailable(): Promise<boolean> {
  try {
    await run('kubectl', ['version', '--client'], { timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parses a multi-document YAML stream; a document that is not a Kubernetes object is an error naming it. */
export function parseObjects(yamlText: string): K8sObject[] {
  return parseAllDocuments(yamlText)
    .map((doc, index) => {
      if (doc.errors.length > 0) throw new Error(`document ${index + 1}: ${doc.errors.map((e) => e.message).join('; ')}`);
      return doc.toJS() as unknown;
    })
    .filter((value) => value !== null)
    .map((value, index) => {
      if (!isObject(value)) throw new Error(`document ${index + 1} is not a mapping`);
      const { apiVersion, kind, metadata } = value;
      if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !isObject(metadata) || typeof metadata.name !== 'string') {
        throw new Error(`document ${index + 1} lacks apiVersion, kind or metadata.name`);
      }
      return value as K8sObject;
    });
}

/** `kubectl kustomize <dir>`, parsed. */
export async function renderOverlay(dir: string): Promise<K8sObject[]> {
  const { stdout } = await run('kubectl', ['kustomize', dir], { maxBuffer: 32 * 1024 * 1024, timeout: 60_000 });
  return parseObjects(stdout);
}

/** `Kind/name` (with the namespace when set): how messages name an object. */
export const describeObject = (object: K8sObject): string =>
  `${object.kind}/${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name}`;
