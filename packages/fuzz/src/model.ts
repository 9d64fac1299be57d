// What the fuzzer knows of the API: the operations, parameters and response schemas of the
// OpenAPI document the running edge serves, compiled into JSON Schema validators.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** The subset of JSON Schema the generators read. */
export interface ParamSchema {
  type?: string;
  enum?: readonly string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  maxItems?: number;
  items?: ParamSchema;
}

export interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required: boolean;
  schema: ParamSchema;
}

export interface Operation {
  operationId: string;
  /** Path template under the server URL, e.g. /fragrances/{id}. */
  path: string;
  parameters: readonly Parameter[];
  /** Documented statuses (e.g. '200', '304', '400'). */
  statuses: ReadonlySet<string>;
  needsKey: boolean;
  /** Validates a JSON body answered with `status`, or undefined when none is documented. */
  validator: (status: number) => ValidateFunction | undefined;
}

export interface ApiModel {
  /** Path prefix of the server URL, e.g. /v1. */
  basePath: string;
  operations: readonly Operation[];
  /** Validates any problem+json body. */
  problem: ValidateFunction;
}

interface OpenApiDocument {
  servers?: { url: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, unknown> };
}
interface OpenApiOperation {
  operationId: string;
  parameters?: { name: string; in: Parameter['in']; required?: boolean; schema?: ParamSchema }[];
  security?: unknown[];
  responses: Record<string, { content?: Record<string, unknown> }>;
}

const pointer = (...parts: string[]) => parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** Reads the document served at `${baseUrl}/v1/openapi.json` into operations and validators. */
export async function loadApiModel(baseUrl: string): Promise<ApiModel> {
  const res = await fetch(`${baseUrl}/v1/openapi.json`);
  if (!res.ok) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
  const document = (await res.json()) as OpenApiDocument;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  // One document, referenced by JSON pointer: its own $refs (#/components/...) resolve inside it.
  ajv.addSchema(document, 'openapi');
  const compile = (...parts: string[]) => ajv.compile({ $ref: `openapi#/${pointer(...parts)}` });
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    const operation = methods.get;
    if (!operation) continue;
    const validators = new Map<string, ValidateFunction>();
    for (const [status, response] of Object.entries(operation.responses)) {
      if (response.content?.['application/json']) {
        validators.set(status, compile('paths', path, 'get', 'responses', status, 'content', 'application/json', 'schema'));
      }
    }
    operations.push({
      operationId: operation.operationId,
      path,
      parameters: (operation.parameters ?? []).map((p) => ({
        name: p.name,
        in: p.in,
        required: p.required ?? false,
        schema: p.schema ?? {},
      })),
      statuses: new Set(Object.keys(operation.responses)),
      needsKey: operation.security === undefined || operation.security.length > 0,
      validator: (status) => validators.get(String(status)),
    });
  }
  const basePath = new URL(document.servers?.[0]?.url ?? `${baseUrl}/v1`).pathname.replace(/\/$/, '');
  return { basePath, operations, problem: compile('components', 'schemas', 'Problem') };
}
