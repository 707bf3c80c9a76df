/**
 * Aggregating runs into a results table (the OPID table, Table 1's layout in OPID, Yang et al. 2026,
 * docs/references.md#opid): per method, success per split and per task type as mean ± standard error over seeds, at
 * an endpoint — the final evaluation, the best one, or the mean of the last three (`Endpoint`) — and the paired
 * difference to a baseline method over the seeds both have (every row's to the table's baseline; for named
 * comparisons, `method − baseline` of any two methods). Pure functions over plain numbers.
 */

/**
 * Mean and standard error of the mean (s.e. = sample standard deviation / √n, n − 1 in the variance; 0 for n = 1).
 */
export interface MeanSe {
  mean: number;
  se: number;
  n: number;
}

/**
 * Mean ± standard error of `xs`.
 * @throws Error when `xs` is empty or holds a non-finite number.
 */
export function meanSe(xs: readonly number[]): MeanSe {
  if (xs.length === 0) throw new Error('meanSe: no values');
  if (!xs.every(Number.isFinite)) throw new Error(`meanSe: non-finite value in [${xs.join(', ')}]`);
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n === 1) return { mean, se: 0, n };
  const v = xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1);
  return { mean, se: Math.sqrt(v / n), n };
}

/**
 * Paired difference a − b over the keys (seeds) both have: mean ± standard error of the per-seed differences.
 * @returns null when no key is shared.
 */
export function pairedDiff(a: ReadonlyMap<number, number>, b: ReadonlyMap<number, number>): MeanSe | null {
  const d: number[] = [];
  for (const [k, v] of a) if (b.has(k)) d.push(v - b.get(k)!);
  return d.length ? meanSe(d) : null;
}

/** Success of one split at one evaluation, as the trainer's eval event carries it (rates in [0, 1]). */
export interface SplitResult {
  successRate: number;
  episodes: number;
  byTaskType: Record<string, { successRate: number; episodes: number }>;
}

/** The evaluations of one run: step → split → result. */
export interface RunEvals {
  method: string;
  seed: number;
  evals: { step: number; splits: Record<string, SplitResult> }[];
}

/** Which evaluation of a run a table cell reads. */
export type Pick = 'final' | 'best';

/**
 * What a table cell reads of a run: one evaluation (`Pick`), or `last3`, the mean of the run's last three
 * evaluations after step 0 (`lastEvals`), each split and task type averaged on its own.
 */
export type Endpoint = Pick | 'last3';

/** How many evaluations the `last3` endpoint averages. */
export const LAST_EVALS = 3;

/**
 * The evaluation a cell reads: `final` = the last; `best` = the highest mean success over `splits` (ties: earlier).
 * @throws Error when the run has no evaluation.
 */
export function pickEval(run: RunEvals, pick: Pick, splits: readonly string[]): RunEvals['evals'][number] {
  if (!run.evals.length) throw new Error(`run ${run.method} seed ${run.seed} has no evaluation`);
  if (pick === 'final') return run.evals[run.evals.length - 1];
  const score = (e: RunEvals['evals'][number]) =>
    splits.reduce((s, k) => s + (Object.hasOwn(e.splits, k) ? e.splits[k].successRate : 0), 0) / splits.length;
  return run.evals.reduce((best, e) => (score(e) > score(best) ? e : best));
}

/**
 * The evaluations the `last3` endpoint averages: the run's last LAST_EVALS (3) evaluations after step 0, in the run's
 * order. Step 0 (the start, the same policy for every method) never counts; a run with fewer than three evaluations
 * after step 0 gives the ones it has (one or two).
 * @throws Error when the run has no evaluation after step 0.
 */
export function lastEvals(run: RunEvals): RunEvals['evals'] {
  const after = run.evals.filter((e) => e.step > 0);
  if (!after.length) throw new Error(`run ${run.method} seed ${run.seed} has no evaluation after step 0`);
  return after.slice(-LAST_EVALS);
}

/**
 * A run's rate per cell key (`split` or `split/taskType`) at `endpoint`: the rate of the evaluation `pickEval` chose,
 * or for `last3` the mean over the evaluations of `lastEvals` that hold that key (a task type an evaluation did not
 * draw is averaged over the others). Keys in the order first met: each split, then its task types.
 * @throws Error when the run has no evaluation (after step 0, for `last3`).
 */
export function ratesAt(run: RunEvals, endpoint: Endpoint, splits: readonly string[]): Map<string, number> {
  const evals = endpoint === 'last3' ? lastEvals(run) : [pickEval(run, endpoint, splits)];
  const seen = new Map<string, number[]>();
  const put = (key: string, v: number) => (seen.get(key) ?? seen.set(key, []).get(key)!).push(v);
  for (const e of evals)
    for (const s of splits) {
      if (!Object.hasOwn(e.splits, s)) continue;
      put(s, e.splits[s].successRate);
      for (const [t, x] of Object.entries(e.splits[s].byTaskType)) put(`${s}/${t}`, x.successRate);
    }
  return new Map([...seen].map(([k, xs]) => [k, xs.reduce((a, b) => a + b, 0) / xs.length]));
}

/**
 * One row of the table: a method, per split (and per split × task type) its mean ± s.e. and difference to the
 * baseline.
 */
export interface TableRow {
  method: string;
  seeds: number[];
  /** key `split` or `split/taskType` → success over seeds (rates in [0, 1]). */
  cells: Record<string, MeanSe>;
  /** Same keys: paired difference to the baseline method (null for the baseline itself or without shared seeds). */
  diff: Record<string, MeanSe | null>;
}

/** Per method, per cell key (`split` or `split/taskType`), per seed: the run's rate at the endpoint (`ratesAt`). */
type Values = Map<string, Map<string, Map<number, number>>>;

/**
 * The rates the cells of `endpoint` read: method → key → seed → rate.
 * @throws Error when a run has no evaluation (after step 0, for `last3`).
 */
function valuesOf(runs: readonly RunEvals[], splits: readonly string[], endpoint: Endpoint): Values {
  const values: Values = new Map();
  for (const r of runs) {
    const m = values.get(r.method) ?? values.set(r.method, new Map()).get(r.method)!;
    for (const [key, v] of ratesAt(r, endpoint, splits)) (m.get(key) ?? m.set(key, new Map()).get(key)!).set(r.seed, v);
  }
  return values;
}

/**
 * Per cell key of `m`: the paired difference to `base` (null where `base` lacks the key or shares no seed with it).
 */
function diffsTo(
  m: Map<string, Map<number, number>>,
  base: Map<string, Map<number, number>> | undefined,
): Record<string, MeanSe | null> {
  const diff: Record<string, MeanSe | null> = {};
  for (const [key, bySeed] of m) diff[key] = base?.has(key) ? pairedDiff(bySeed, base.get(key)!) : null;
  return diff;
}

/**
 * Build the table rows for `endpoint` (final or best evaluation, or the mean of the last three): methods in the order
 * given, cells for every split and every split × task type present, differences to `baseline` paired by seed.
 * @throws Error when a run has no evaluation (after step 0, for `last3`).
 */
export function buildTable(
  runs: readonly RunEvals[],
  methods: readonly string[],
  splits: readonly string[],
  endpoint: Endpoint,
  baseline: string,
): TableRow[] {
  const values = valuesOf(runs, splits, endpoint);
  const base = values.get(baseline);
  return methods
    .filter((m) => values.has(m))
    .map((method) => {
      const m = values.get(method)!;
      const cells: Record<string, MeanSe> = {};
      const seeds = new Set<number>();
      for (const [key, bySeed] of m) {
        cells[key] = meanSe([...bySeed.values()]);
        for (const s of bySeed.keys()) seeds.add(s);
      }
      const diff = method === baseline ? Object.fromEntries([...m.keys()].map((k) => [k, null])) : diffsTo(m, base);
      return { method, seeds: [...seeds].sort((a, b) => a - b), cells, diff };
    });
}

/**
 * A paired comparison a table names besides its rows' differences to the one baseline: `method − baseline`, and
 * what that difference measures (`label`, e.g. `normalisation`).
 */
export interface Comparison {
  label: string;
  method: string;
  baseline: string;
}

/** A comparison's paired differences per cell key, as a row's `diff`; `seeds`: those both methods have a run of. */
export interface ComparisonRow extends Comparison {
  seeds: number[];
  diff: Record<string, MeanSe | null>;
}

/**
 * The paired differences of `comparisons` at `endpoint`, in the order given, for every cell key of the method (null
 * where the baseline lacks it); a comparison of which either method has no run yet is left out.
 * @throws Error when a run has no evaluation (after step 0, for `last3`).
 */
export function buildComparisons(
  runs: readonly RunEvals[],
  comparisons: readonly Comparison[],
  splits: readonly string[],
  endpoint: Endpoint,
): ComparisonRow[] {
  const values = valuesOf(runs, splits, endpoint);
  const seedsOf = (m: string) => new Set(runs.filter((r) => r.method === m).map((r) => r.seed));
  return comparisons
    .filter((c) => values.has(c.method) && values.has(c.baseline))
    .map((c) => {
      const theirs = seedsOf(c.baseline);
      const seeds = [...seedsOf(c.method)].filter((s) => theirs.has(s)).sort((a, b) => a - b);
      return { ...c, seeds, diff: diffsTo(values.get(c.method)!, values.get(c.baseline)) };
    });
}

/**
 * `12.3 ± 1.2` in percent points (one decimal); `+1.5 ± 0.8` with a sign for differences (a mean that rounds to zero
 * prints `+0.0`, never `-0.0`, so rounding noise of a difference like 0.8 − 0.7 − 0.1 shows no sign flip). A value
 * over one seed has no standard error: it prints `12.3 (1 seed)`, so a single run's number (or a difference of two
 * single runs) never reads as `± 0.0`, i.e. as certain.
 */
export function pct(x: MeanSe | null | undefined, signed = false): string {
  if (!x) return '—';
  const m = (100 * x.mean).toFixed(1).replace(/^-(0\.0)$/, '$1'),
    s = 100 * x.se;
  const sign = signed && !m.startsWith('-') ? '+' : '';
  return x.n === 1 ? `${sign}${m} (1 seed)` : `${sign}${m} ± ${s.toFixed(1)}`;
}

/**
 * A paired difference in percent points, signed (`+20.0 ± 10.0`), with ` (2 seeds)` appended when it pairs fewer
 * seeds than its row has (the baseline lacks that cell on some seeds), so a difference over fewer seeds is said in
 * words; `—` for none. `rowSeeds`: the number of seeds of the row the difference belongs to.
 */
export function pctDiff(d: MeanSe | null | undefined, rowSeeds: number): string {
  if (!d) return '—';
  return `${pct(d, true)}${d.n < rowSeeds && d.n > 1 ? ` (${d.n} seeds)` : ''}`;
}

/** One method's success curves: mean ± s.e. over seeds at each evaluation step, per split (rates in [0, 1]). */
export interface CurveRow {
  method: string;
  /** Training steps at which any of the method's seeds evaluated, ascending. */
  steps: number[];
  /** split → one entry per step: mean ± s.e. over the seeds evaluated there on that split (null where none was). */
  splits: Record<string, (MeanSe | null)[]>;
}

/**
 * The success curves of the table's methods (the page's Results view draws them): for every method in the order
 * given, every evaluation step of its runs, and every split, mean ± standard error over the seeds that evaluated
 * that split at that step. Methods without runs are left out.
 */
export function buildCurves(
  runs: readonly RunEvals[],
  methods: readonly string[],
  splits: readonly string[],
): CurveRow[] {
  return methods.flatMap((method) => {
    const mine = runs.filter((r) => r.method === method);
    if (!mine.length) return [];
    const steps = [...new Set(mine.flatMap((r) => r.evals.map((e) => e.step)))].sort((a, b) => a - b);
    const bySplit: Record<string, (MeanSe | null)[]> = {};
    for (const s of splits) {
      bySplit[s] = steps.map((step) => {
        const xs = mine.flatMap((r) =>
          r.evals
            .filter((e) => e.step === step && Object.hasOwn(e.splits, s))
            .slice(-1)
            .map((e) => e.splits[s].successRate),
        );
        return xs.length ? meanSe(xs) : null;
      });
    }
    return [{ method, steps, splits: bySplit }];
  });
}
