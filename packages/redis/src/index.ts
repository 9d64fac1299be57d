/**
 * @fragrance/redis: opening a Redis connection, the one way the whole project does it.
 *
 * Why a package of its own: `@fragrance/config` parses the environment and stays free of
 * clients (zod only); the stores (`api-keys`, `identity`, `jobs`) take a connection and must not
 * decide how it behaves when Redis is away; `@fragrance/http` is about HTTP. Connection
 * behaviour (offline queue, retries, timeouts, reconnects) and what gets logged during an outage
 * is one job, used by every service's main.ts, the ops CLI and the scripts, so it lives here.
 *
 * - createRedisClient(config, logger, role): the role's option set (request-path, queue,
 *   command; see RedisRole) and the outage logging policy (see reportOutages).
 * - waitForRedis(client): connect a lazy client / wait until ready, failing with a message that
 *   names host:port but never the password.
 * - loadLuaScript(file) / scriptCommand(redis, name, script): the one Lua loader (key count from
 *   the file name `name-N.lua`, `--- @include` resolved, registered once per connection).
 * - onPrimaryChange(client, listener): the client reached another server process than before
 *   (a failover or a restart), which may lack the last acknowledged writes.
 */
export { createRedisClient, waitForRedis, type RedisClientConfig } from './client.ts';
export { isRedisConnectionError, isRedisUnavailableError, quietRedisLogger } from './outages.ts';
export { onPrimaryChange } from './primary-change.ts';
export { loadLuaScript, scriptCommand, type ScriptArg } from './scripts.ts';
