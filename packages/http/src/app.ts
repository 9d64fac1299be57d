import express, { type Express } from 'express';
import { notFoundHandler, problemHandler } from './problem.ts';

/**
 * An express app as every service builds one: no X-Powered-By banner; `mount` adds the service's
 * middleware and routes; then an unknown path answers 404 and every error problem+json.
 */
export function serviceApp(mount: (app: Express) => void): Express {
  const app = express();
  app.disable('x-powered-by');
  mount(app);
  app.use(notFoundHandler);
  app.use(problemHandler);
  return app;
}
