export { Supervisor, type ProcessSpec, type ProcessState, type SupervisorOptions } from './supervisor.ts';
export { acquireStackLock, portInUse, readStackLock, StackRunningError, type AcquireOptions, type StackLockOwner } from './stack-lock.ts';
export { haproxyConfig, type HaproxyBackend, type HaproxyConfigOptions, type HaproxyServer } from './haproxy.ts';
export {
  haproxyCommand,
  haproxyServers,
  sendControl,
  serveControl,
  type ControlHandler,
  type ControlReply,
  type ControlRequest,
} from './control.ts';
