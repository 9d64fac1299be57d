import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const CLI = new URL('./cli.ts', import.meta.url).pathname;
const run = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000 });

describe('npm run fuzz arguments', () => {
  it('prints its usage for --help and exits 0 without starting anything', () => {
    const result = run('--help');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^usage: npm run fuzz -- \[--runs N\]/);
  });

  it('names an unknown option and shows the usage, exit 2, no stack trace', () => {
    const result = run('--bogus');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("Unknown option '--bogus'");
    expect(result.stderr).toContain('usage: npm run fuzz');
    expect(result.stderr).not.toMatch(/\bat \w+ \(/);
  });

  it('refuses a count that is not a positive integer, naming it', () => {
    const result = run('--runs', 'x');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--runs must be a positive integer, not "x"');
  });
});
