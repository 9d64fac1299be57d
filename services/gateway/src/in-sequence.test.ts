import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { inSequence } from './in-sequence.ts';

/** Runs `handler` on a bare request and says how it ended. */
function run(handler: RequestHandler): { calls: string[]; done: unknown[] } {
  const calls: string[] = [];
  const done: unknown[] = [];
  const req = { calls } as unknown as Request;
  handler(req, {} as Response, ((error?: unknown) => void done.push(error)) as NextFunction);
  return { calls, done };
}
const step =
  (name: string, outcome?: unknown): RequestHandler =>
  (req, _res, next) => {
    (req as unknown as { calls: string[] }).calls.push(name);
    next(outcome);
  };

describe('inSequence', () => {
  it('runs every middleware in order, then hands on once', () => {
    expect(run(inSequence([step('a'), step('b'), step('c')]))).toEqual({ calls: ['a', 'b', 'c'], done: [undefined] });
  });

  it('passes the first error on and skips the rest, as separate layers do', () => {
    const error = new Error('refused');
    expect(run(inSequence([step('a'), step('b', error), step('c')]))).toEqual({ calls: ['a', 'b'], done: [error] });
  });

  it('turns a throw into an error for the router', () => {
    const error = new Error('thrown');
    const throws: RequestHandler = () => {
      throw error;
    };
    expect(run(inSequence([step('a'), throws, step('c')]))).toEqual({ calls: ['a'], done: [error] });
  });
});
