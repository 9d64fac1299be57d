import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { objectOf, toolSchema } from './tool-schema.ts';

describe('toolSchema', () => {
  const shape = { id: z.uuid(), limit: z.number().int().min(1).default(10) };

  it('is built once per shape, and converts to JSON Schema once per io and target', () => {
    const schema = toolSchema(shape);
    expect(toolSchema(shape)).toBe(schema);
    const input = schema['~standard'].jsonSchema.input({ target: 'draft-2020-12' });
    expect(schema['~standard'].jsonSchema.input({ target: 'draft-2020-12' })).toBe(input);
    expect(input).toEqual(z.toJSONSchema(z.object(shape), { target: 'draft-2020-12', io: 'input' }));
    expect(schema['~standard'].jsonSchema.output({ target: 'draft-2020-12' })).toEqual(
      z.toJSONSchema(z.object(shape), { target: 'draft-2020-12', io: 'output' }),
    );
  });

  it('validates with zod: defaults applied, bad values named', async () => {
    const schema = toolSchema(shape);
    const good = await schema['~standard'].validate({ id: '00000000-0000-4000-8000-000000000000' });
    expect(good).toEqual({ value: { id: '00000000-0000-4000-8000-000000000000', limit: 10 } });
    const bad = await schema['~standard'].validate({ id: 'nope', limit: 0 });
    expect('issues' in bad && bad.issues?.map((i) => i.path?.map(String).join('.'))).toEqual(['id', 'limit']);
    expect(objectOf(shape)).toBe(objectOf(shape));
  });
});
