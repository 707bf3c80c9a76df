/**
 * The Bench view's state (Svelte 5 runes): the size and backends chosen, the progress of the benchmark the worker
 * runs (`TrainerApi.bench`, src/worker/bench.ts), its report, and its copyable one-line text and JSON
 * (src/core/bench/report.ts).
 */
import * as Comlink from 'comlink';
import type { TrainerApi } from '../../worker/api';
import {
  BENCH_BACKENDS,
  benchJson,
  benchLine,
  type BenchBackend,
  type BenchProgress,
  type BenchReport,
} from '../../core/bench/report';
import type { PageBenchSize } from '../../core/bench/workloads';

/** Bench view state for one page; `api` returns the worker's API or null while none is up. */
export class BenchState {
  /** `quick` (seconds on wasm) or `standard` (`npm run bench`'s size). */
  size = $state<PageBenchSize>('quick');
  /** Backends to run, in BENCH_BACKENDS order. */
  backends = $state<BenchBackend[]>(['webgpu', 'webgl', 'wasm']);
  /** The benchmark in progress, or null. */
  progress = $state.raw<BenchProgress | null>(null);
  /** The last finished report, or null. */
  report = $state.raw<BenchReport | null>(null);
  /** Why the last benchmark could not run, in words; '' when it ran. */
  error = $state('');
  /** True while the worker benchmarks. */
  running = $state(false);
  /** What the last copy did, e.g. `copied the line`; '' before any. */
  copied = $state('');

  /** The report's one line of text, or ''. */
  line = $derived(this.report ? benchLine(this.report) : '');
  /** The report as JSON, or ''. */
  json = $derived(this.report ? benchJson(this.report) : '');

  private readonly sink = Comlink.proxy((p: BenchProgress) => (this.progress = p));

  constructor(private readonly api: () => Pick<TrainerApi, 'bench'> | null) {}

  /** Adds or removes a backend, keeping BENCH_BACKENDS order. */
  toggle(b: BenchBackend, on: boolean): void {
    this.backends = BENCH_BACKENDS.filter((x) => (x === b ? on : this.backends.includes(x)));
  }

  /** Runs the benchmark in the worker; a refusal (training running, no backend chosen) is shown in `error`. */
  async run(): Promise<void> {
    const api = this.api();
    if (!api) {
      this.error = 'the training worker is not ready yet (it is starting, or failed: see the Train view)';
      return;
    }
    this.running = true;
    this.error = '';
    this.copied = '';
    try {
      this.report = await api.bench({ size: this.size, backends: [...this.backends] }, this.sink);
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    } finally {
      this.running = false;
      this.progress = null;
    }
  }

  /** Copies the one-line text (`what` = 'line') or the JSON to the clipboard and says so in `copied`. */
  async copy(what: 'line' | 'json'): Promise<void> {
    const text = what === 'line' ? this.line : this.json;
    try {
      await navigator.clipboard.writeText(text);
      this.copied = what === 'line' ? 'copied the line' : 'copied the JSON';
    } catch (e) {
      this.copied = `could not copy (${e instanceof Error ? e.message : String(e)}); select the text below instead`;
    }
  }
}
