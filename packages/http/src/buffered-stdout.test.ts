import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const LOGGER = new URL('./logger.ts', import.meta.url).pathname;

describe('bufferedStdout', () => {
  it('writes every buffered line when the process exits, also a line shorter than the buffer', async () => {
    const script = `
      import { bufferedStdout, createLogger } from ${JSON.stringify(LOGGER)};
      const log = createLogger('probe', 'info', bufferedStdout());
      for (let i = 0; i < 100; i++) log.info({ i }, 'line');
      process.exit(0);
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { i: number });
    expect(lines.map((line) => line.i)).toEqual([...Array(100).keys()]);
  });
});
