import type { Redis } from 'ioredis';
import { replayCommand, type JournalEntry } from './admission-journal.ts';
import type { Clock } from './day-window.ts';
import { ADMISSION_ID_TTL_SECONDS } from './keys.ts';

/**
 * The writes Redis acknowledged lately, kept so a new primary can be given the ones it never got.
 * Redis replicates after it answers: a primary that dies (or restarts from an AOF synced every
 * second) can take the last admissions with it, and those requests were answered 200. After a
 * change of primary each one is replayed idempotently (its `admitted:` mark says whether the new
 * primary has it), and a refund made since is made again (it is a no-op where it already ran).
 */
export interface RecentAdmissions {
  /** A request Redis counted under its admission id (an edge request id). */
  admitted(entry: JournalEntry): void;
  /** That request was given back since (`redo` runs the same refund again): it must not be counted by a replay. */
  refunded(id: string, redo: () => Promise<unknown>): void;
  /** Replays every write still kept, in Redis as it is now. */
  replay(): Promise<RecentReplay>;
  /** Writes kept. */
  size(): number;
}

export interface RecentReplay {
  /** Admissions the new primary did not have: counted now. */
  counted: number;
  /** Admissions it had. */
  alreadyCounted: number;
  /** Refunds run again (each a no-op when the new primary had it). */
  refunds: number;
  /** Too old to replay safely: their mark may have expired, so a replay could count them twice. */
  skipped: number;
  /** Replays Redis did not acknowledge (they stay kept for the next change). */
  failed: number;
}

type Kept = { at: number } & ({ entry: JournalEntry } | { redo: () => Promise<unknown> });

/** A replay must find an admission's mark if the new primary has it: only entries well inside the mark's life are replayed. */
const REPLAYABLE_MS = (ADMISSION_ID_TTL_SECONDS - 30) * 1_000;

/** The longest window worth keeping: an older entry would not be replayed anyway. */
export const MAX_REPLAY_WINDOW_MS = REPLAYABLE_MS;

/**
 * Keeps what Redis acknowledged in the last `windowMs` (the longest a replica may lag behind its
 * primary): one small entry per admitted request, pruned as new ones come.
 */
export function createRecentAdmissions({
  redis,
  prefix,
  windowMs,
  clock = Date.now,
}: {
  redis: Redis;
  prefix: string;
  windowMs: number;
  clock?: Clock;
}): RecentAdmissions {
  if (windowMs > MAX_REPLAY_WINDOW_MS) throw new RangeError(`windowMs must be at most ${MAX_REPLAY_WINDOW_MS} (an admission mark's life)`);
  const replayOne = replayCommand(redis, prefix);
  // Insertion order is time order (a refund is re-inserted at its own time), so pruning stops at the first young entry.
  const kept = new Map<string, Kept>();
  const prune = (now: number) => {
    for (const [id, write] of kept) {
      if (now - write.at <= windowMs) break;
      kept.delete(id);
    }
  };
  return {
    admitted(entry) {
      prune(entry.at);
      kept.set(entry.id, { at: entry.at, entry });
    },
    refunded(id, redo) {
      kept.delete(id);
      kept.set(id, { at: clock(), redo });
    },
    size: () => kept.size,
    async replay() {
      const now = clock();
      const result: RecentReplay = { counted: 0, alreadyCounted: 0, refunds: 0, skipped: 0, failed: 0 };
      const writes: Kept[] = [];
      for (const write of kept.values()) {
        if (now - write.at <= REPLAYABLE_MS) writes.push(write);
        else result.skipped += 1;
      }
      const settled = await Promise.allSettled(writes.map((write) => ('entry' in write ? replayOne(write.entry) : write.redo())));
      settled.forEach((outcome, index) => {
        if (outcome.status === 'rejected') result.failed += 1;
        else if (!('entry' in writes[index]!)) result.refunds += 1;
        else if (outcome.value === 1) result.counted += 1;
        else result.alreadyCounted += 1;
      });
      return result;
    },
  };
}
