// Where the running cluster keeps its sockets and files, and the URLs it prints.
import { LOCAL_DIR } from '../lib/stack-steps.ts';
import { EDGE_PORT, PROMETHEUS_PORT } from './topology.ts';

export const CLUSTER_DIR = `${LOCAL_DIR}/cluster`;
/** `npm run cluster -- restart|status` and the chaos bench talk to the running cluster here. */
export const CONTROL_SOCKET = `${CLUSTER_DIR}/control.sock`;
export const HAPROXY_SOCKET = `${CLUSTER_DIR}/haproxy.sock`;
export const READY_PATH = '/health/ready';
export const EDGE_URL = `http://127.0.0.1:${EDGE_PORT}`;
export const PROMETHEUS_URL = `http://127.0.0.1:${PROMETHEUS_PORT}`;
