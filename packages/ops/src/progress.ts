import cliProgress from 'cli-progress';
import type { CommandContext } from './command.ts';

/** Where a long command is: `done` of `total` units (unknown total: no lines), with counts beside. */
export interface Step<C extends string> {
  done: number;
  total: number | undefined;
  counts: Record<C, number>;
}

export interface ProgressReporter<C extends string> {
  update: (step: Step<C>) => void;
  stop: () => void;
}

/**
 * A progress bar on a terminal, a line every 10% elsewhere (CI logs stay short), e.g.
 * `ingest: 500/1000 read, 498 indexed, 2 skipped` for label `ingest`, unit `read` and the counts
 * `indexed` and `skipped`.
 */
export function progressReporter<C extends string>(
  ctx: CommandContext,
  label: string,
  unit: string,
  countNames: readonly C[],
): ProgressReporter<C> {
  if ((ctx.stderr as NodeJS.WriteStream).isTTY) {
    const counts = countNames.map((name) => `{${name}} ${name}`).join(' | ');
    const bar = new cliProgress.SingleBar(
      { stream: ctx.stderr, format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | ${counts} | {eta}s`, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update: ({ done, total, counts: values }) => {
        const of = Math.max(total ?? done, 1);
        if (!started) {
          bar.start(of, 0, Object.fromEntries(countNames.map((name) => [name, 0])));
          started = true;
        }
        bar.setTotal(of);
        bar.update(done, values);
      },
      stop: () => started && bar.stop(),
    };
  }
  let nextTenth = 1;
  return {
    update: ({ done, total, counts }) => {
      if (!total) return;
      const tenth = Math.floor((done * 10) / total);
      if (tenth < nextTenth) return;
      ctx.stderr.write(`${label}: ${done}/${total} ${unit}, ${countNames.map((name) => `${counts[name]} ${name}`).join(', ')}\n`);
      nextTenth = tenth + 1;
    },
    stop: () => undefined,
  };
}
