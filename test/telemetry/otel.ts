/**
 * The real OpenTelemetry SDK, wired for assertions: spans kept in memory (SimpleSpanProcessor), metrics
 * collected on demand, and the AsyncLocalStorage context manager so that "the caller's active
 * context" means what it means in a merchant's Node process.
 */
import { type Attributes, context, type HrTime } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { type DataPoint, type Histogram, MeterProvider, type MetricData, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { openTelemetry } from 'payments-sdk/opentelemetry';

/** A metric reader that collects when asked. */
class OnDemandReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** One metric data point, flattened for assertions. */
export interface Point {
  attributes: Attributes;
  value: number | Histogram;
}

let contextManagerSet = false;

/** A tracer provider and a meter provider of the real SDK, and an `openTelemetry()` on them. */
export function otelHarness() {
  if (!contextManagerSet) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    contextManagerSet = true;
  }
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const telemetry = openTelemetry({ tracerProvider, meterProvider });
  return {
    telemetry,
    tracer: tracerProvider.getTracer('test'),
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    span(name: string): ReadableSpan {
      const found = exporter.getFinishedSpans().filter((span) => span.name === name);
      if (found.length !== 1)
        throw new Error(`expected one span ${name}, found ${found.length}: ${exporter.getFinishedSpans().map((s) => s.name)}`);
      return found[0] as ReadableSpan;
    },
    async metrics(): Promise<MetricData[]> {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
    },
    async points(name: string): Promise<Point[]> {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((m) => m.descriptor.name === name);
      return (metric?.dataPoints ?? []).map((point: DataPoint<unknown>) => ({
        attributes: point.attributes,
        value: point.value as number | Histogram,
      }));
    },
    reset() {
      exporter.reset();
    },
  };
}

/** The parent span id of a span (undefined for a root). */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/** Seconds of an hrtime pair. */
export function seconds([s, ns]: HrTime): number {
  return s + ns / 1e9;
}
