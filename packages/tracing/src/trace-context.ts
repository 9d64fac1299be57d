import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  trace,
  TraceFlags,
  type Context,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, RandomIdGenerator, TracerProvider } from '@opentelemetry/sdk-trace';
import type { Request, RequestHandler } from 'express';

export interface TracingSettings {
  /** service.name of exported spans. */
  service: string;
  /** OTEL_EXPORTER_OTLP_ENDPOINT (e.g. http://collector:4318): spans are exported only when set. */
  otlpEndpoint?: string | undefined;
}

export interface Tracing {
  /** Flushes and stops the exporter (a no-op when nothing is exported). */
  shutdown(): Promise<void>;
}

const propagator = new W3CTraceContextPropagator();
const ids = new RandomIdGenerator();
let contextManager: AsyncLocalStorageContextManager | undefined;
/** Set only when spans are exported; otherwise requests carry a span context and nothing records it. */
let tracer: Tracer | undefined;

/**
 * The active context follows a request through its awaits (AsyncLocalStorage), so any code, a
 * log line or an outgoing call, can find the trace it belongs to. Idempotent.
 */
function ensureContextManager(): void {
  if (contextManager) return;
  contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(propagator);
}

/**
 * Called once by main.ts. Without OTEL_EXPORTER_OTLP_ENDPOINT nothing is recorded: requests
 * get trace and span ids (for logs and the next hop) and that is all, which costs a few random
 * bytes per request. With it, every request is a server span batched to the collector over OTLP/HTTP.
 */
export function initTracing({ service, otlpEndpoint }: TracingSettings): Tracing {
  ensureContextManager();
  if (!otlpEndpoint) return { shutdown: async () => undefined };
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${otlpEndpoint.replace(/\/+$/, '')}/v1/traces` }) })],
  });
  trace.setGlobalTracerProvider(provider);
  tracer = provider.getTracer('@fragrance/tracing');
  return {
    shutdown: async () => {
      await provider.shutdown();
      tracer = undefined;
    },
  };
}

/** The trace id of the request being served, if any: every log line carries it. */
export function currentTraceId(): string | undefined {
  return trace.getSpanContext(context.active())?.traceId;
}

/** `traceparent` (and `tracestate`) for an outgoing call made on behalf of the current request. */
export function traceHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  propagation.inject(context.active(), headers, defaultTextMapSetter);
  return headers;
}

/** The route template for a span name (low cardinality, as OpenTelemetry's conventions ask). */
function spanName(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${req.method} ${req.baseUrl}${path}` : req.method;
}

/**
 * Joins the trace of a valid inbound W3C `traceparent` or starts a new one, makes it the active
 * context for the rest of the request, and rewrites the request's own `traceparent` so that a
 * proxied or forwarded request carries this hop as its parent. An invalid header is ignored
 * (a new trace starts), as the W3C spec asks.
 */
export function traceContext(): RequestHandler {
  ensureContextManager();
  return (req, res, next) => {
    const parent: Context = propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
    let active: Context;
    if (tracer) {
      const span = tracer.startSpan(req.method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method } }, parent);
      res.once('close', () => {
        span.updateName(spanName(req));
        span.setAttribute('http.response.status_code', res.statusCode);
        span.end();
      });
      active = trace.setSpan(parent, span);
    } else {
      const inbound = trace.getSpanContext(parent);
      active = trace.setSpanContext(parent, {
        traceId: inbound?.traceId ?? ids.generateTraceId(),
        spanId: ids.generateSpanId(),
        traceFlags: inbound?.traceFlags ?? TraceFlags.NONE,
      });
    }
    delete req.headers.traceparent;
    delete req.headers.tracestate;
    propagator.inject(active, req.headers, defaultTextMapSetter);
    // Listeners on the response (the request log line on 'finish', the metrics on 'close') run
    // in the request's context too: a response ended from a socket's callback (a proxied body
    // from a pooled upstream connection) would otherwise carry the context that socket was
    // opened in, another request's. One wrapper of emit per response; context.bind(active, res)
    // did the same by patching six listener methods and wrapping every listener (closures and
    // WeakMaps per request, a few percent of the edge's CPU).
    const emit = res.emit.bind(res) as (event: string | symbol, ...args: unknown[]) => boolean;
    res.emit = ((event: string | symbol, ...args: unknown[]): boolean =>
      context.active() === active ? emit(event, ...args) : context.with(active, () => emit(event, ...args))) as typeof res.emit;
    context.with(active, next);
  };
}

/** Runs `fn` inside a fresh trace (a job, a scheduled run): its log lines share one trace id. */
export function withNewTrace<T>(fn: () => T): T {
  ensureContextManager();
  const spanContext = { traceId: ids.generateTraceId(), spanId: ids.generateSpanId(), traceFlags: TraceFlags.NONE };
  return context.with(trace.setSpanContext(ROOT_CONTEXT, spanContext), fn);
}
