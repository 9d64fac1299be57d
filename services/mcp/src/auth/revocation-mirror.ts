import { revokedBy, type RevocableClaims, type RevocationSnapshot, type RevocationStore } from '@fragrance/identity';
import type { Logger } from '@fragrance/http';
import { Counter, Gauge } from '@fragrance/metrics';
import type { RevocationCheck } from './verify-token.ts';

const localChecks = new Counter({
  name: 'mcp_revocation_local_checks_total',
  help: 'Revocation checks decided from the local copy because Redis was unreachable.',
});
const copyAge = new Gauge({
  name: 'mcp_revocation_copy_age_seconds',
  help: 'Age of the local copy of the revocation records (since its last successful sync).',
});

export interface RevocationMirrorOptions {
  store: Pick<RevocationStore, 'isRevoked' | 'snapshot'>;
  /** How often the local copy is read again from Redis. */
  syncMs: number;
  /** Oldest copy decided from while Redis is unreachable; past it the check fails (503). */
  maxAgeMs: number;
  logger: Logger;
  now?: () => number;
}

export interface RevocationMirror extends RevocationCheck {
  /** Reads every record into the local copy now (also done every syncMs). */
  sync: () => Promise<void>;
  /** When the local copy was last read whole (ms), undefined before the first sync. */
  readonly syncedAt: number | undefined;
  /** Whether a check would be decided now even with Redis unreachable (copy within maxAgeMs). */
  usable: () => boolean;
  close: () => void;
}

/**
 * Revocation checks that survive a Redis outage: every check asks Redis as before; when Redis
 * cannot answer, it is decided from a local copy of every record, read whole every `syncMs`,
 * as long as that copy is at most `maxAgeMs` old (else the check fails: 503, never an accept on
 * nothing). So a revocation written to Redis is effective within `syncMs` in the copy too, and
 * the server decides without Redis for at most `maxAgeMs` after its last sync. One log line when
 * it starts deciding locally, one when Redis answers again (how long, how many checks).
 */
export function createRevocationMirror({ store, syncMs, maxAgeMs, logger, now = Date.now }: RevocationMirrorOptions): RevocationMirror {
  let copy: RevocationSnapshot | undefined;
  let syncedAt: number | undefined;
  let degradedSince: number | undefined;
  let decidedLocally = 0;
  const usable = () => copy !== undefined && syncedAt !== undefined && now() - syncedAt <= maxAgeMs;

  const sync = async () => {
    const snapshot = await store.snapshot();
    copy = snapshot;
    syncedAt = now();
  };
  const timer = setInterval(() => {
    if (syncedAt !== undefined) copyAge.set((now() - syncedAt) / 1_000);
    sync().catch(() => undefined); // the next check that needs Redis says it is down
  }, syncMs);
  timer.unref();
  void sync().catch(() => undefined);

  return {
    sync,
    get syncedAt() {
      return syncedAt;
    },
    usable,
    close: () => clearInterval(timer),
    async isRevoked(claims: RevocableClaims) {
      try {
        const revoked = await store.isRevoked(claims);
        if (degradedSince !== undefined) {
          logger.info({ duration_ms: now() - degradedSince, decided_locally: decidedLocally }, 'revocations read from Redis again');
          degradedSince = undefined;
        }
        return revoked;
      } catch (error) {
        if (!usable() || !copy) throw error;
        if (degradedSince === undefined) {
          degradedSince = now();
          decidedLocally = 0;
          logger.warn({ err: error, copy_age_ms: now() - (syncedAt ?? 0) }, 'Redis unreachable: revocations decided from the local copy');
        }
        decidedLocally += 1;
        localChecks.inc();
        return revokedBy(claims, {
          grant: claims.gid ? copy.grants.get(claims.gid) : null,
          user: claims.sub ? copy.users.get(claims.sub) : null,
        });
      }
    },
  };
}
