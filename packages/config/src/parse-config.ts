import type { z } from 'zod';

/** A variable was missing or invalid; the message names every offending variable. */
export class ConfigError extends Error {
  readonly code = 'config_invalid';
  readonly variables: readonly string[];

  constructor(problems: readonly { variable: string; message: string }[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`);
    this.name = 'ConfigError';
    this.variables = problems.map((p) => p.variable);
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Parses a service's environment once, at start-up. Empty strings count as unset so that
 * `FOO=` in a shell behaves like a missing variable rather than a bad value.
 */
export function parseConfig<S extends z.ZodType>(schema: S, env: Env): z.infer<S> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => {
      const variable = issue.path.map(String).join('.') || '(root)';
      // Missing means absent from the environment: a coerced number that is NaN also reports no input.
      const missing = issue.code === 'invalid_type' && issue.path.length === 1 && cleaned[String(issue.path[0])] === undefined;
      return { variable, message: missing ? 'is required' : issue.message };
    }),
  );
}
