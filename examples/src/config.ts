import { z } from 'zod';

/** Where the examples find the API: FRAGRANCE_API_URL (default the local `npm start`) and your key. */
const ExampleConfig = z.object({
  FRAGRANCE_API_URL: z.url().default('http://127.0.0.1:8080/v1'),
  FRAGRANCE_API_KEY: z.string().startsWith('fcs_', 'must be an API key (fcs_…): npm start prints a demo key'),
});

export function loadConfig(): z.infer<typeof ExampleConfig> {
  const parsed = ExampleConfig.safeParse(process.env);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    console.error(`${issue?.path.join('.') ?? 'environment'}: ${issue?.message ?? 'invalid'}`);
    process.exit(2);
  }
  return parsed.data;
}
