import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { Redis } from 'ioredis';
import { loadLuaScript, scriptCommand } from '@fragrance/redis';
import { z } from 'zod';
import { ADMISSION_ID, redisKeys, USAGE_RETENTION_DAYS } from './keys.ts';

const REPLAY = loadLuaScript(new URL('./replay-2.lua', import.meta.url));

/**
 * How long a replayed request's mark (`admitted:<id>:<admission id>`) is kept: longer than any
 * journal can wait for its replay to be acknowledged (a gateway down for days still finds it),
 * short enough to cost nothing (one small key per locally admitted request).
 */
export const REPLAY_MARK_TTL_SECONDS = 8 * 86_400;

/** One request a gateway admitted without Redis: counted on `day` for the key `key` once replayed. */
export interface JournalEntry {
  /** Unique admission id (the edge's request id when trusted, else a random one). */
  id: string;
  /** Public key id (`key_…`). */
  key: string;
  /** Quota day (YYYY-MM-DD in the quota zone) the request was answered on. */
  day: string;
  units: number;
  /** When it was admitted (ms). */
  at: number;
}

export interface AdmissionJournal {
  /** Written (write(2)) before it returns: a crash of the process after it loses nothing. */
  append(entry: JournalEntry): void;
  /** Takes back an entry not yet replayed (its request failed on our side); false when it was replayed or is being replayed (refund it in Redis). */
  void(id: string): boolean;
  /** Entries admitted locally and not yet counted in Redis. */
  backlog(): number;
  /** Counts every pending entry in Redis (idempotently), then drops them from memory and disk; resolves to how many were newly counted. */
  replay(): Promise<{ replayed: number; acknowledged: number }>;
  close(): void;
}

export interface JournalOptions {
  redis: Redis;
  prefix: string;
  /** The journal file (JSON lines); created with its directory when missing, replayed when left behind. */
  file: string;
  /** fdatasync at most this often (ms) while lines are unsynced; 0: after every line. */
  fsyncIntervalMs: number;
}

/**
 * Counts one admission in Redis unless it is counted already (replay-2.lua): 1 when counted now,
 * 0 when its mark says it was (Redis admitted it under the same id, or an earlier replay did).
 */
export function replayCommand(redis: Redis, prefix: string): (entry: JournalEntry) => Promise<number> {
  const keys = redisKeys(prefix);
  const replay = scriptCommand<number>(redis, 'fcsReplayAdmission', REPLAY);
  const usageTtlSeconds = USAGE_RETENTION_DAYS * 86_400;
  return (entry) =>
    replay(keys.usage(entry.key, entry.day), keys.admitted(entry.key, entry.id), entry.units, usageTtlSeconds, REPLAY_MARK_TTL_SECONDS);
}

/** One journal line: an admission, or `{"void": id}` taking one back. Anything else is skipped. */
const JournalLine = z.union([
  z.object({ void: z.string().regex(ADMISSION_ID) }),
  z.object({
    id: z.string().regex(ADMISSION_ID),
    key: z.string().regex(/^key_[0-9a-f]{16}$/),
    day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    units: z.number().int().min(1).max(1_000_000),
    at: z.number(),
  }),
]);

function parseLines(text: string): Map<string, JournalEntry> {
  const pending = new Map<string, JournalEntry>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue; // a line cut by a crash mid-write: its request was never answered
    }
    const parsed = JournalLine.safeParse(value);
    if (!parsed.success) continue;
    if ('void' in parsed.data) pending.delete(parsed.data.void);
    else pending.set(parsed.data.id, parsed.data);
  }
  return pending;
}

/** The journal's file: appended line by line, rewritten whole (temp file + rename) with what stays pending. */
function journalFile(file: string, fsyncIntervalMs: number) {
  let fd = -1;
  let dirty = false;
  const sync = () => {
    if (!dirty || fd < 0) return;
    fdatasyncSync(fd);
    dirty = false;
  };
  const timer = fsyncIntervalMs > 0 ? setInterval(sync, fsyncIntervalMs) : undefined;
  timer?.unref();
  return {
    rewrite(entries: Iterable<JournalEntry>) {
      if (fd >= 0) closeSync(fd);
      const temp = `${file}.tmp`;
      writeFileSync(temp, [...entries].map((entry) => JSON.stringify(entry) + '\n').join(''), { mode: 0o600 });
      const tempFd = openSync(temp, 'r');
      fsyncSync(tempFd);
      closeSync(tempFd);
      renameSync(temp, file);
      fd = openSync(file, 'a', 0o600);
      dirty = false;
    },
    writeLine(line: string) {
      writeSync(fd, line + '\n');
      dirty = true;
      if (fsyncIntervalMs === 0) sync();
    },
    close() {
      if (timer) clearInterval(timer);
      if (fd < 0) return;
      sync();
      closeSync(fd);
      fd = -1;
    },
  };
}

/**
 * The local journal of requests admitted while Redis was unreachable: in memory and appended to
 * a file, one JSON line each (`{"id","key","day","units","at"}`; `{"void":id}` takes one back).
 * Entries left behind by an earlier process (a crash) are loaded at creation. Replay runs
 * replay-2.lua per entry: its mark makes a second replay of the same entry (after a crash
 * between replay and truncation) count nothing, and so does an edge request id Redis itself
 * admitted. Acknowledged entries are then dropped and the file rewritten (temp file + rename).
 */
export function openAdmissionJournal({ redis, prefix, file, fsyncIntervalMs }: JournalOptions): AdmissionJournal {
  const replayOne = replayCommand(redis, prefix);
  // Only this user reads or writes it: its lines are billed as they stand.
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const pending = existsSync(file) ? parseLines(readFileSync(file, 'utf8')) : new Map<string, JournalEntry>();
  const disk = journalFile(file, fsyncIntervalMs);
  disk.rewrite(pending.values());
  let inFlight: Promise<{ replayed: number; acknowledged: number }> | undefined;

  // Entries being replayed right now: too late to void (the caller refunds in Redis instead).
  const replaying = new Set<string>();
  const replayPending = async () => {
    const batch = [...pending.values()];
    for (const entry of batch) replaying.add(entry.id);
    const results = await Promise.allSettled(batch.map((entry) => replayOne(entry))).finally(() => replaying.clear());
    let replayed = 0;
    let acknowledged = 0;
    let failure: Error | undefined;
    results.forEach((result, index) => {
      if (result.status === 'rejected')
        return void (failure ??= result.reason instanceof Error ? result.reason : new Error(String(result.reason)));
      acknowledged += 1;
      replayed += result.value;
      pending.delete(batch[index]!.id);
    });
    if (acknowledged > 0) disk.rewrite(pending.values());
    if (failure !== undefined) throw failure;
    return { replayed, acknowledged };
  };

  return {
    append(entry) {
      pending.set(entry.id, entry);
      disk.writeLine(JSON.stringify(entry));
    },
    void(id) {
      if (replaying.has(id) || !pending.delete(id)) return false;
      disk.writeLine(JSON.stringify({ void: id }));
      return true;
    },
    backlog: () => pending.size,
    replay() {
      if (pending.size === 0) return Promise.resolve({ replayed: 0, acknowledged: 0 });
      inFlight ??= replayPending().finally(() => (inFlight = undefined));
      return inFlight;
    },
    close: () => disk.close(),
  };
}
