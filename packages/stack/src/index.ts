export { Supervisor } from './supervisor.ts';
export { acquireStackLock, StackRunningError } from './stack-lock.ts';
export { fallbackName, haproxyConfig, type HaproxyBackend } from './haproxy.ts';
export { haproxyCommand, haproxyServers, sendControl, serveControl, type ControlRequest } from './control.ts';
