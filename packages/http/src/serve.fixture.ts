// A real process for serve.test.ts: serve() with a slow route, so the test can send SIGTERM while
// a request is in flight. Arguments: <port> <shutdown timeout ms>.
import express from 'express';
import { pino } from 'pino';
import { Lifecycle, probeRoutes } from './health.ts';
import { serve } from './serve.ts';

const [port, shutdownTimeoutMs] = process.argv.slice(2).map(Number);
const lifecycle = new Lifecycle();
const app = express();
app.use(probeRoutes({ lifecycle, required: {}, timeoutMs: 1_000 }));
app.get('/slow', (req, res) => {
  process.stdout.write('slow request started\n'); // the test signals only once a request is in flight
  setTimeout(() => res.json({ done: true }), Number(req.query.ms));
});
app.get('/fast', (_req, res) => res.json({ fast: true }));
await serve({ app, host: '127.0.0.1', port: port!, logger: pino({ level: 'warn' }), lifecycle, shutdownTimeoutMs: shutdownTimeoutMs! });
process.stdout.write('ready\n');
