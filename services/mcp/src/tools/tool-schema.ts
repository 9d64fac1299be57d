import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { z } from 'zod';

export type ToolSchema<S extends z.ZodRawShape> = StandardSchemaWithJSON<z.input<z.ZodObject<S>>, z.output<z.ZodObject<S>>>;

const schemas = new WeakMap<z.ZodRawShape, { object: z.ZodObject; tool: StandardSchemaWithJSON }>();

function entryOf(shape: z.ZodRawShape): { object: z.ZodObject; tool: StandardSchemaWithJSON } {
  let entry = schemas.get(shape);
  if (!entry) {
    const object = z.object(shape);
    entry = { object, tool: withCachedJsonSchema(object) };
    schemas.set(shape, entry);
  }
  return entry;
}

/**
 * The schema to register a tool's input or output with, built once per process. The server is
 * built per request (stateless transport), and the SDK converts each registered schema to JSON
 * Schema on every tools/list, and on every tools/call for the output schema (and, on 2026-07-28,
 * for the input schema too): several ms of CPU per request for the catalogue's large schemas. The
 * schemas never change, so the conversion is done once and served from memory; validation is zod's own.
 */
export function toolSchema<S extends z.ZodRawShape>(shape: S): ToolSchema<S> {
  return entryOf(shape).tool as ToolSchema<S>;
}

/** `z.object(shape)`, built once per process for a module-level shape. */
export function objectOf<S extends z.ZodRawShape>(shape: S): z.ZodObject<S> {
  return entryOf(shape).object as z.ZodObject<S>;
}

/** A Standard Schema that validates with `schema` and converts to JSON Schema once per io and target. */
function withCachedJsonSchema(schema: z.ZodObject): StandardSchemaWithJSON {
  const standard = schema['~standard'];
  const converted = new Map<string, Record<string, unknown>>();
  const converter =
    (io: 'input' | 'output') =>
    (options: { readonly target: string }): Record<string, unknown> => {
      const key = `${io} ${options.target}`;
      let json = converted.get(key);
      if (!json) {
        json = Object.freeze(standard.jsonSchema[io](options as Parameters<typeof standard.jsonSchema.input>[0]));
        converted.set(key, json);
      }
      return json;
    };
  return {
    '~standard': {
      version: 1,
      vendor: standard.vendor,
      validate: (value) => standard.validate(value),
      jsonSchema: { input: converter('input'), output: converter('output') },
    },
  };
}
