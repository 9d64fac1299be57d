// The repository's commit-msg hook (.githooks/commit-msg), run as git runs it and through a real
// `git commit` in a scratch repository whose core.hooksPath points at it (as scripts/toolchain.sh sets).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const HOOKS = fileURLToPath(new URL('../.githooks', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'commit-msg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function hook(message: string): { status: number | null; stderr: string } {
  const file = join(dir, 'COMMIT_EDITMSG');
  writeFileSync(file, message);
  const run = spawnSync('bash', [join(HOOKS, 'commit-msg'), file], { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
}

describe('commit-msg hook', () => {
  it('accepts a subject of at most 72 characters with details in the body', () => {
    expect(hook('Run the slow suites in npm run test:slow\n\nnpm test: 251 s before, 140 s after.\n').status).toBe(0);
    expect(hook(`${'a'.repeat(72)}\n`).status).toBe(0);
    expect(hook(`${'é'.repeat(72)}\n`).status).toBe(0); // characters, not bytes
    expect(hook('# Please enter the commit message\nFix the port map\n').status).toBe(0); // git's comment lines
  });

  it('refuses a subject over 72 characters, saying how long it is', () => {
    const refused = hook(`${'a'.repeat(73)}\n\nbody\n`);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('73 characters (at most 72)');
  });

  it('refuses a subject ending with a period', () => {
    const refused = hook('Fix the port map.\n');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('ends with a period');
  });

  it('refuses an empty subject line, even with a body under it', () => {
    expect(hook('\nthe details only\n').status).toBe(1);
    expect(hook('   \n').status).toBe(1);
    expect(hook('').stderr).toContain('subject line is empty');
  });

  it('stops a real git commit through core.hooksPath', () => {
    const repo = join(dir, 'repo');
    const git = (...args: string[]) =>
      spawnSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' });
    expect(spawnSync('git', ['init', '-q', repo]).status).toBe(0);
    expect(git('config', 'core.hooksPath', HOOKS).status).toBe(0);
    writeFileSync(join(repo, 'file'), 'x');
    expect(git('add', 'file').status).toBe(0);
    const long = git('commit', '-q', '-m', `Add a file${' with a very long subject'.repeat(4)}`);
    expect(long.status).not.toBe(0);
    expect(long.stderr).toContain('at most 72');
    expect(git('commit', '-q', '-m', 'Add a file', '-m', 'Why it is there.').status).toBe(0);
    expect(git('log', '--format=%s').stdout).toBe('Add a file\n');
  });
});
