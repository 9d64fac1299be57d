// Validates rendered objects against the Kubernetes API's OpenAPI schemas (kubernetes-models) and
// ECK's Elasticsearch CRD schema (@kubernetes-models/elastic-cloud), offline.
import { describeObject, type K8sObject } from './render.ts';

interface ValidatingModel {
  validate(): void;
}
type ModelConstructor = new (data: K8sObject) => ValidatingModel;

/** Module of the models of one API group/version; anything else has no schema here and fails. */
function modelModule(apiVersion: string): string | undefined {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  if (!version) return undefined;
  if (group === 'elasticsearch.k8s.elastic.co') return `@kubernetes-models/elastic-cloud/${group}/${version}`;
  if (group === '' || group?.endsWith('.k8s.io') || ['apps', 'batch', 'autoscaling', 'policy'].includes(group ?? '')) {
    return `kubernetes-models/${group ? `${group}/` : ''}${version}`;
  }
  return undefined;
}

async function modelOf(apiVersion: string, kind: string): Promise<ModelConstructor | undefined> {
  const specifier = modelModule(apiVersion);
  if (!specifier) return undefined;
  let exports: Record<string, unknown>;
  try {
    exports = (await import(specifier)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const model = exports[kind];
  return typeof model === 'function' ? (model as ModelConstructor) : undefined;
}

/**
 * kustomize folds long base64 Secret values over lines; the API server's decoder skips the line
 * breaks but the schema's `byte` format does not, so they are removed before validating.
 */
function withUnfoldedSecretData(object: K8sObject): K8sObject {
  if (object.kind !== 'Secret' || typeof object.data !== 'object' || object.data === null) return object;
  const data = Object.fromEntries(
    Object.entries(object.data as Record<string, unknown>).map(([key, value]) => [
      key,
      typeof value === 'string' ? value.replace(/[\r\n]/g, '') : value,
    ]),
  );
  return { ...object, data };
}

/** Schema errors of one object (empty when valid); an apiVersion/kind without a schema is an error. */
export async function schemaErrors(object: K8sObject): Promise<string[]> {
  const Model = await modelOf(object.apiVersion, object.kind);
  if (!Model) return [`${describeObject(object)}: no schema for ${object.apiVersion} ${object.kind}`];
  try {
    new Model(withUnfoldedSecretData(object)).validate();
    return [];
  } catch (error) {
    return [`${describeObject(object)}: ${error instanceof Error ? error.message : String(error)}`];
  }
}

/** Schema errors of every object. */
export async function validateSchemas(objects: readonly K8sObject[]): Promise<string[]> {
  return (await Promise.all(objects.map(schemaErrors))).flat();
}
