/**
 * Section 5 of `npm run bench` (BENCH_ONLY=telemetry): the CPU one request costs with
 * `openTelemetry()` against the same client without it. The tracer provider has a BatchSpanProcessor
 * (as in production) over an exporter that drops the spans, and the meter provider a reader (so
 * every attempt is aggregated into the histogram); neither sends anything anywhere.
 *
 * CPU, not latency: `process.cpuUsage()` (user + system) over a round of sequential GETs to the stub
 * service, which runs in its own process. Interleaved rounds, the order alternating; the ratio is the
 * median of the per-round ratios.
 */
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { PaymentsClient } from 'payments-sdk';
import { openTelemetry, type Telemetry } from 'payments-sdk/opentelemetry';
import { max, median, min } from 'simple-statistics';

/** An exporter that accepts every batch and keeps nothing. */
class DiscardExporter implements SpanExporter {
  export(_spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    done({ code: 0 }); // ExportResultCode.SUCCESS
  }
  async shutdown(): Promise<void> {}
}

/** A reader that aggregates and is never collected (an exporter's interval, without the exporter). */
class IdleReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** Microseconds of CPU (user + system) `run` takes. */
async function cpuOf(run: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const { user, system } = process.cpuUsage(before);
  return user + system;
}

/** CPU per request with and without `openTelemetry()`, on the stub service at `origin`. */
export async function benchTelemetry(origin: string, options: { quick: boolean; apiKey: string; uuid: string }) {
  const rounds = options.quick ? 5 : 15;
  const requests = options.quick ? 200 : 1000;
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new DiscardExporter())] });
  const meterProvider = new MeterProvider({ readers: [new IdleReader()] });
  const variants = {
    'payments-sdk': new PaymentsClient({ apiKey: options.apiKey, baseUrl: origin }),
    'payments-sdk + openTelemetry()': new PaymentsClient({
      apiKey: options.apiKey,
      baseUrl: origin,
      telemetry: openTelemetry({ tracerProvider, meterProvider }),
    }),
  };
  type Name = keyof typeof variants;
  const names = Object.keys(variants) as Name[];
  const samples: Record<Name, number[]> = { 'payments-sdk': [], 'payments-sdk + openTelemetry()': [] };
  const round = (client: PaymentsClient, n: number) => async () => {
    for (let i = 0; i < n; i++) await client.payments.retrieve(options.uuid);
  };
  // Warm-up: JIT, sockets, the first span batch.
  for (const name of names) await round(variants[name], Math.max(50, requests >> 2))();
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? names : [...names].reverse();
    for (const name of order) samples[name].push((await cpuOf(round(variants[name], requests))) / requests);
  }
  const hooks = hooksAlone(openTelemetry({ tracerProvider, meterProvider }), options.quick ? 20_000 : 100_000);
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
  const base = samples['payments-sdk'];
  const rows: Record<string, string>[] = names.map((name) => ({
    client: name,
    'CPU µs per request (median)': median(samples[name]).toFixed(1),
    'min–max over rounds': `${min(samples[name]).toFixed(1)}–${max(samples[name]).toFixed(1)}`,
    '× without telemetry': median(samples[name].map((value, i) => value / (base[i] as number))).toFixed(3),
  }));
  rows.push({
    client: 'the hooks alone (one call, one attempt: two spans, one histogram record), no HTTP',
    'CPU µs per request (median)': hooks.toFixed(1),
    'min–max over rounds': '',
    '× without telemetry': `+${((hooks / median(base)) * 100).toFixed(1)} % of a request`,
  });
  return { rounds, requests, samples, hooksMicroseconds: hooks, rows };
}

/** CPU microseconds of one call's hooks (call, one attempt, both ended), the HTTP left out: a figure the machine's noise barely moves. */
function hooksAlone(telemetry: Telemetry, n: number): number {
  const info = {
    operation: 'payments.retrieve',
    method: 'GET',
    urlTemplate: '/api/v1/payments/{uuid}',
    serverAddress: '127.0.0.1',
    serverPort: 8080,
    mode: 'sandbox',
  } as const;
  const once = () => {
    const call = telemetry.onCall(info);
    call.onAttempt({ resendCount: 0 }).end({ status: 200 });
    call.end({ status: 200, replayed: false });
  };
  for (let i = 0; i < n >> 2; i++) once();
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) once();
  const { user, system } = process.cpuUsage(before);
  return (user + system) / n;
}
