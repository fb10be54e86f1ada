/** `concurrency.ts --diagnose`: where the client's memory goes during the run (timeline, V8 spaces, snapshot). */
import { subscribe } from 'node:diagnostics_channel';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';

/** One sample of `process.memoryUsage()` plus the run's progress. */
interface Sample {
  ms: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  connected: number;
  headers: number;
  receiving: number;
  finished: number;
}

/** Stream progress counters the run updates: streams that got their first event, streams done. */
export interface Progress {
  /** Connections undici opened, responses whose headers arrived (undici's diagnostics channels). */
  connected?: number;
  headers?: number;
  receiving: number;
  finished: number;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0).padStart(5);

/**
 * Samples memory every 20 ms; keeps a timeline (one row per `rowMs`), the V8 space sizes at the
 * RSS peak, and writes one heap snapshot `snapshotAtMs` after the start when asked.
 */
export class MemoryDiagnosis {
  private readonly rows: Sample[] = [];
  private readonly started = performance.now();
  private peak: { sample: Sample; spaces: ReturnType<typeof getHeapSpaceStatistics> } | undefined;
  private snapshotPath: string | undefined;
  private lastRowMs = -Infinity;

  private readonly progress: Progress;
  private readonly rowMs: number;
  private readonly snapshotAtMs: number | undefined;

  constructor(progress: Progress, rowMs = 500, snapshotAtMs?: number) {
    this.progress = progress;
    this.rowMs = rowMs;
    this.snapshotAtMs = snapshotAtMs;
    progress.connected = 0;
    progress.headers = 0;
    subscribe('undici:client:connected', () => progress.connected!++);
    subscribe('undici:request:headers', () => progress.headers!++);
  }

  /** Takes one sample (call it from the run's 20 ms sampler). */
  sample(): void {
    const usage = process.memoryUsage();
    const sample: Sample = {
      ms: performance.now() - this.started,
      rss: usage.rss,
      heapUsed: usage.heapUsed,
      heapTotal: usage.heapTotal,
      external: usage.external,
      arrayBuffers: usage.arrayBuffers,
      connected: this.progress.connected ?? 0,
      headers: this.progress.headers ?? 0,
      receiving: this.progress.receiving,
      finished: this.progress.finished,
    };
    if (this.peak === undefined || sample.rss > this.peak.sample.rss)
      this.peak = { sample, spaces: getHeapSpaceStatistics() };
    if (sample.ms - this.lastRowMs >= this.rowMs) {
      this.rows.push(sample);
      this.lastRowMs = sample.ms;
    }
    if (
      this.snapshotAtMs !== undefined &&
      this.snapshotPath === undefined &&
      sample.ms >= this.snapshotAtMs
    ) {
      this.snapshotPath = writeHeapSnapshot(`/tmp/concurrency-${process.pid}.heapsnapshot`);
    }
  }

  /** The timeline, the V8 spaces at the RSS peak, and the snapshot's path. */
  report(): string {
    const lines = [
      '  timeline (MB): ms | rss heapUsed heapTotal external arrayBuffers | connected headers receiving finished',
    ];
    for (const row of this.rows) {
      lines.push(
        `  ${row.ms.toFixed(0).padStart(6)} | ${mb(row.rss)} ${mb(row.heapUsed)} ${mb(row.heapTotal)} ` +
          `${mb(row.external)} ${mb(row.arrayBuffers)} | ${String(row.connected).padStart(5)} ${String(row.headers).padStart(5)} ${String(row.receiving).padStart(5)} ${String(row.finished).padStart(5)}`,
      );
    }
    if (this.peak !== undefined) {
      const { sample, spaces } = this.peak;
      const other = sample.rss - sample.heapTotal - sample.external;
      lines.push(
        `  at RSS peak (${sample.ms.toFixed(0)} ms, ${sample.receiving} receiving, ${sample.finished} finished): ` +
          `rss ${mb(sample.rss).trim()} = heapTotal ${mb(sample.heapTotal).trim()} + external ${mb(sample.external).trim()} ` +
          `+ other ${mb(other).trim()} (code, native, allocator)`,
      );
      lines.push('  V8 spaces at the peak (MB used / committed):');
      for (const space of spaces) {
        lines.push(
          `    ${space.space_name.padEnd(24)} ${mb(space.space_used_size)} / ${mb(space.physical_space_size)}`,
        );
      }
    }
    if (this.snapshotPath !== undefined) lines.push(`  heap snapshot: ${this.snapshotPath}`);
    return lines.join('\n');
  }
}
