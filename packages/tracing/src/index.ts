/**
 * @fragrance/tracing: W3C trace context across every hop (OpenTelemetry's API). The edge joins or
 * starts a trace, each service passes `traceparent` on, every log line carries `trace_id`, and
 * spans are exported over OTLP only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
 */
export { currentTraceId, initTracing, traceContext, traceHeaders, withNewTrace } from './trace-context.ts';
