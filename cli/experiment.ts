/**
 * `npm run experiment -- opid-table [--protocol table] [--env ENV] [--preset P] [--seeds 3] [--steps 100] [--tasks 4]
 * [--parallel 2] [--episodes 210] [--out DIR]`: the OPID paper's ALFWorld table (OPID, Yang et al. 2026, Table 1 and
 * its ablations; docs/references.md#opid) as one command, on any registered environment (`--env`, default the first
 * registered; `--preset` default: the env's preset with the most task types, as the paper's table has them all).
 *
 * `--protocol table` (the default) runs GRPO, OPID, OPID without episode skills, without step skills, with additive
 * routing (no critical-first routing) and Skill-GRPO, for every seed, from the shipped base policy of the preset (from
 * scratch, said in the table's header, when the preset has none). `--protocol reference` runs the OPID authors'
 * ALFWorld protocol instead (docs/experiments/opid-protocols.md: its shared flags, B 16 × G 8, 160 steps): their GRPO
 * (mean-only), GRPO with mean-std normalisation, their OPID with the heuristic and with the oracle analyzer, and lists
 * the paired comparisons that split OPID − GRPO as published into the normalisation change and the skill term.
 * `--protocol map-easy` asks where OPID's dense signal helps, on the default env's `easy` preset (one task type): GRPO
 * and OPID with the oracle and the heuristic analyzer at λ_skill 1 and 0.1, each OPID row paired with GRPO, its
 * endpoint fixed in advance as the mean of each run's last three evaluations (`last3`, reported first; final and best
 * too). `--protocol map-update` asks whether the oracle's collapse at λ_skill 1 on the fullest preset belongs to the
 * update: GRPO, the oracle at λ 1 with the paper's A_skill and with each `--skill-variant` beyond the paper, each
 * paired with GRPO and each variant with the paper's update (same endpoint). Each run is a run directory
 * `DIR/runs/<method>-<seed>/` (`train --run-dir`, checkpoints with optimizer state every `--checkpoint-every` steps);
 * its events are copied to `DIR/<method>-<seed>.jsonl` and its best-evaluation weights kept as
 * `DIR/<method>-<seed>-best.safetensors` when it finishes. Stopped at any moment and called again, it skips finished
 * runs and continues each unfinished one from its last checkpoint (`train --resume`), so a table longer than one
 * sitting is still one command; a folder of the other protocol's table is refused. Writes `DIR/table.md`
 * (src/core/run/table-md.ts: success and the paired Δ to the baseline per split and task type, or the named
 * comparisons), `DIR/table.json` (src/core/run/table-schema.ts, validated before it is written, the protocol recorded
 * unless it is `table`; the page's Results view opens it) and `DIR/curves.svg` (vega-lite) from the runs' evaluation
 * events (src/core/run/aggregate.ts). `--preset`, `--steps`, `--tasks`, `--eval-every`, `--episodes` and `--out`
 * default to the protocol's values (PROTOCOL). Bad input: a message naming the flag, exit 2.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import * as vega from 'vega';
import * as vl from 'vega-lite';
import { didYouMean, parseArgs, usage, UsageError, USAGE_EXIT_CODE, type ParsedArgs, shellLine } from './args';
import { exitOnClosedStdout, writeAtomic } from './files';
import { PUBLIC_DIR, shownPath } from './base';
import { totalEtaMinutes } from './eta';
import { DEFAULT_ENV, getEnvSpec } from '../src/core/envs/registry';
import type { EnvSpec } from '../src/core/envs/types';
import { ENV_FLAG, presetFor } from './env-flags';
import { baseManifestPath } from '../src/core/pretrain/base';
import type { Comparison, RunEvals } from '../src/core/run/aggregate';
import { makeResultsTable, resultsTableJson } from '../src/core/run/table-schema';
import { algorithmsUsing, parseRunConfig } from '../src/core/run/config';
import { RecordError, parseEvents } from '../src/core/run/record';
import { jsonErrorWhere } from '../src/core/json-where';
import { configFieldsOf, SPEC as TRAIN_SPEC } from './train-flags';
import { resultsTableMarkdown } from '../src/core/run/table-md';
import { counted } from '../src/core/count-text';

/**
 * The OPID settings of every OPID row: λ_skill 0.1 and no episode skill on search steps. With the nano base of the
 * ALFWorld-like env's all-types preset, λ 0.3 (the page's default) and the episode skill on search steps drove the
 * policy's entropy down and its success below GRPO's within 40 steps; this pair held GRPO's level (seed 1, 40 steps;
 * docs/experiments/, the OPID table's page, "Why OPID fell below GRPO").
 */
export const OPID_SETTINGS: readonly string[] = ['--lambda-skill', '0.1', '--episode-skill-on-search=false'];

/** The table's methods: name → its train flags (OPID, Yang et al. 2026, Table 1 rows; docs/references.md#opid). */
export const METHODS: Readonly<Record<string, readonly string[]>> = {
  grpo: ['--algo', 'grpo'],
  opid: ['--algo', 'opid', ...OPID_SETTINGS],
  'opid-no-episode': ['--algo', 'opid', '--ablation', 'no-episode', ...OPID_SETTINGS],
  'opid-no-step': ['--algo', 'opid', '--ablation', 'no-step', ...OPID_SETTINGS],
  'opid-additive': ['--algo', 'opid', '--ablation', 'additive', ...OPID_SETTINGS],
  'skill-grpo': ['--algo', 'skill-grpo'],
};

/**
 * The OPID rows of the reference protocol: the OPID authors' ALFWorld script (their OPID with mean-std
 * normalisation, λ 0.001 unnormalised and unclipped, the episode skill on every row without a step skill, at most 5
 * step skills, every trajectory analysed; docs/experiments/opid-protocols.md, "Proposed presets").
 */
export const REFERENCE_OPID: readonly string[] = [
  '--algo',
  'opid',
  '--adv-norm',
  'mean-std',
  '--kl-beta',
  '0.01',
  '--entropy-coef',
  '0.001',
  '--lambda-skill',
  '0.001',
  '--skill-clip',
  '0',
  '--skill-zscore=false',
  '--ablation',
  'none',
  '--episode-skill-on-search=true',
  '--max-step-skills',
  '5',
  '--failed-only=false',
  '--silent-skill-scale',
  '1',
  '--skill-topk',
  '0',
];

/**
 * The reference protocol's methods (docs/experiments/opid-protocols.md, "Proposed presets"): the authors' GRPO
 * (mean-only normalisation, its KL and entropy weights scaled to our 1·won reward), GRPO with OPID's mean-std
 * normalisation (the control for the skill term), and the authors' OPID with the heuristic and with the privileged
 * oracle analyzer.
 */
export const REFERENCE_METHODS: Readonly<Record<string, readonly string[]>> = {
  'grpo-mean': ['--algo', 'grpo', '--adv-norm', 'mean-only', '--kl-beta', '0.001', '--entropy-coef', '0.0001'],
  'grpo-mean-std': ['--algo', 'grpo', '--adv-norm', 'mean-std', '--kl-beta', '0.01', '--entropy-coef', '0.001'],
  'opid-ref': [...REFERENCE_OPID, '--analyzer', 'heuristic'],
  'opid-ref-oracle': [...REFERENCE_OPID, '--analyzer', 'oracle'],
};

/**
 * The reference table's decomposition: how much of OPID − GRPO as the authors published it is the normalisation
 * change and how much the skill term (docs/experiments/opid-protocols.md, "Comparisons they allow").
 */
export const REFERENCE_COMPARISONS: readonly Comparison[] = [
  { label: 'normalisation', method: 'grpo-mean-std', baseline: 'grpo-mean' },
  { label: 'skill term, heuristic', method: 'opid-ref', baseline: 'grpo-mean-std' },
  { label: 'skill term, oracle', method: 'opid-ref-oracle', baseline: 'grpo-mean-std' },
  { label: 'as published', method: 'opid-ref', baseline: 'grpo-mean' },
];

/** OPID_SETTINGS with λ_skill `lambda` (a decimal, e.g. `1`) in place of its 0.1; the other settings as they are. */
function opidSettingsWith(lambda: string): string[] {
  return OPID_SETTINGS.map((f, i) => (OPID_SETTINGS[i - 1] === '--lambda-skill' ? lambda : f));
}

/**
 * The map protocol's methods: where does OPID's dense signal help? GRPO, and OPID with the privileged oracle and the
 * embedded heuristic analyzer, each at λ_skill 1 and 0.1, the table protocol's other OPID settings (no episode skill
 * on search steps) on every OPID row (docs/experiments/opid-protocols.md, "Map of regimes").
 */
export const MAP_METHODS: Readonly<Record<string, readonly string[]>> = {
  grpo: ['--algo', 'grpo'],
  'opid-oracle-l1': ['--algo', 'opid', '--analyzer', 'oracle', ...opidSettingsWith('1')],
  'opid-oracle-l0.1': ['--algo', 'opid', '--analyzer', 'oracle', ...opidSettingsWith('0.1')],
  'opid-heur-l1': ['--algo', 'opid', '--analyzer', 'heuristic', ...opidSettingsWith('1')],
  'opid-heur-l0.1': ['--algo', 'opid', '--analyzer', 'heuristic', ...opidSettingsWith('0.1')],
};

/** The map protocol's comparisons: each OPID row − GRPO, paired by seed, labelled by its analyzer and λ_skill. */
export const MAP_COMPARISONS: readonly Comparison[] = [
  { label: 'oracle, λ 1', method: 'opid-oracle-l1', baseline: 'grpo' },
  { label: 'oracle, λ 0.1', method: 'opid-oracle-l0.1', baseline: 'grpo' },
  { label: 'heuristic, λ 1', method: 'opid-heur-l1', baseline: 'grpo' },
  { label: 'heuristic, λ 0.1', method: 'opid-heur-l0.1', baseline: 'grpo' },
];

/**
 * The update map's methods (docs/experiments/opid-protocols.md, "Map of regimes", regime 4): does the collapse of
 * OPID with perfect skills at λ_skill 1 belong to the update? GRPO, the oracle at λ 1 with the paper's A_skill, and
 * with each labelled variant beyond the paper (`--skill-variant`: centred under the student, the action's mean, only
 * where A_ep = 0; src/core/math/skill.ts).
 */
export const UPDATE_METHODS: Readonly<Record<string, readonly string[]>> = {
  grpo: ['--algo', 'grpo'],
  'opid-oracle-l1': MAP_METHODS['opid-oracle-l1'],
  ...Object.fromEntries(
    ['centred', 'per-action', 'where-ep-zero'].map((v) => [
      `opid-oracle-l1-${v}`,
      [...MAP_METHODS['opid-oracle-l1'], '--skill-variant', v],
    ]),
  ),
};

/** The update map's comparisons: each oracle row − GRPO, and each variant − the paper's update, paired by seed. */
export const UPDATE_COMPARISONS: readonly Comparison[] = [
  { label: 'oracle, λ 1, paper', method: 'opid-oracle-l1', baseline: 'grpo' },
  ...['centred', 'per-action', 'where-ep-zero'].flatMap((v) => [
    { label: `oracle, λ 1, ${v}`, method: `opid-oracle-l1-${v}`, baseline: 'grpo' },
    { label: `${v} − paper`, method: `opid-oracle-l1-${v}`, baseline: 'opid-oracle-l1' },
  ]),
];

/** The train flags every run of a table shares (from the shipped base policy when the preset has one). */
type CommonFlags = (a: ExperimentArgs, hasBase: boolean) => string[];

/** A protocol: the table's methods, its baseline and comparisons, its shared flags and its defaults. */
interface Protocol {
  /** The title of table.md. */
  title: (a: ExperimentArgs) => string;
  methods: Readonly<Record<string, readonly string[]>>;
  /** The method every row's Δ is to. */
  baseline: string;
  /** Named paired comparisons besides the Δ to the baseline (table.md lists them instead of its Δ per task type). */
  comparisons?: readonly Comparison[];
  /** Also aggregate at the mean of each run's last three evaluations (the endpoint; table.md reports it first). */
  last3?: boolean;
  common: CommonFlags;
  /** The header's lines on the rows' own flags (and the endpoint, where the protocol fixes one). */
  rowsLine: () => string[];
  /**
   * --steps, --tasks, --eval-every, --episodes and --out when not given; --preset when not given, this one (else
   * the env's preset with the most task types).
   */
  defaults: { steps: number; tasks: number; 'eval-every': number; episodes: number; out: string; preset?: string };
}

const SPLITS = ['test-seen', 'test-unseen'] as const;

const PROTOCOLS = ['table', 'reference', 'map-easy', 'map-update'] as const;

const SPEC = {
  protocol: {
    type: 'string',
    help:
      "table: the OPID paper's table (GRPO, OPID, its three ablations, Skill-GRPO).\n" +
      "reference: the OPID authors' ALFWorld protocol (history 5, KL, entropy bonus, λ 0.001 …; admissible " +
      'decoding) as a decomposition table (grpo-mean, grpo-mean-std, opid-ref, opid-ref-oracle; ' +
      'docs/experiments/opid-protocols.md).\n' +
      "map-easy: where OPID's dense signal helps, on the default env's easy preset (grpo, opid-oracle-l1, " +
      'opid-oracle-l0.1, opid-heur-l1, opid-heur-l0.1: analyzer oracle or heuristic, λ_skill 1 or 0.1; each − ' +
      'grpo at the mean of the last three evaluations, fixed in advance).\n' +
      "map-update: whether the oracle's collapse at λ_skill 1 belongs to the update, on the env's fullest preset " +
      '(grpo, opid-oracle-l1 and its three --skill-variant rows beyond the paper: centred, per-action, ' +
      'where-ep-zero; same endpoint).\n' +
      'Defaults (--out: see below): table --steps 100 --tasks 4 --eval-every 25 --episodes 210;\n' +
      'reference --steps 160 --tasks 16 --eval-every 20 --episodes 210;\n' +
      'map-easy --preset easy --steps 80 --tasks 4 --eval-every 20 --episodes 400;\n' +
      'map-update --steps 50 --tasks 4 --eval-every 10 --episodes 210.',
    default: 'table',
    choices: PROTOCOLS,
  },
  env: ENV_FLAG,
  preset: {
    type: 'string',
    help:
      "environment preset, one of the env's presets (default: the env's preset with the most task types, as the " +
      "paper's table has them all; easy with --protocol map-easy)",
  },
  seeds: { type: 'int', help: 'seeds per method (1..seeds)', default: 3, min: 1, max: 20 },
  // Sized for ~8 h with --parallel 2 on 2 CPU cores (docs/experiments/, the OPID table's page): an all-types
  // step of the ALFWorld-like env at B 4 × G 8 costs 7–25 s there and an evaluation of 2 × 210 episodes 1–2 min,
  // so a run of 100 steps 16–50 min, 18 runs.
  steps: {
    type: 'int',
    help:
      'training steps per run; default 100 with --protocol table (its 18 runs take ~4–8 h on 2 cores with ' +
      "--parallel 2), 160 with reference (the authors' 160; ~1.5–4 h a run), 80 with map-easy (~7 min a run), 50 " +
      'with map-update',
    min: 1,
    max: 100000,
  },
  parallel: {
    type: 'int',
    help: 'runs at once (one core each is best on a 2-core machine)',
    default: 2,
    min: 1,
    max: 16,
  },
  // 210: with p ≈ 0.5 one standard error of a 3-seed mean is √(0.25 / (3·210)) ≈ 2.0 points; 400: one run's
  // evaluation √(0.25 / 400) = 2.5 points, a 3-seed mean's ≈ 1.4.
  episodes: {
    type: 'int',
    help:
      'evaluation episodes per split; default 210 with --protocol table and reference (one s.e. of a 3-seed mean ' +
      '≤ 2 points) and map-update, 400 with map-easy (≤ 1.4 points)',
    min: 1,
    max: 2000,
  },
  'eval-every': {
    type: 'int',
    help:
      'evaluate every k steps; default 25 with --protocol table, 20 with reference and map-easy, 10 with ' +
      'map-update',
    min: 1,
    max: 100000,
  },
  'checkpoint-every': {
    type: 'int',
    help: 'checkpoint (with optimizer state) every k steps (every protocol: 10)',
    default: 10,
    min: 1,
    max: 100000,
  },
  tasks: {
    type: 'int',
    help:
      'B: tasks per step; default 4 with --protocol table (a default-preset step at ~7–25 s on 2 cores) and ' +
      "map-easy and map-update, 16 with reference (the authors' 16)",
    min: 1,
    max: 256,
  },
  group: { type: 'int', help: 'G: rollouts per task (every protocol: 8)', default: 8, min: 1, max: 64 },
  out: {
    type: 'string',
    help:
      'output folder; default runs/opid-table with --protocol table, runs/opid-table-reference with reference, ' +
      'runs/opid-map-easy with map-easy, runs/opid-map-update with map-update',
  },
  help: { type: 'boolean', help: 'show this help' },
} as const;

function fail(msg: string): never {
  process.stderr.write(`experiment: ${msg}\n`);
  process.exit(USAGE_EXIT_CODE);
}

/** Events of a JSON-lines file (lines that are not JSON objects are skipped). */
function readEvents(file: string): Record<string, unknown>[] {
  if (!fs.existsSync(file)) return [];
  const out: Record<string, unknown>[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const e = JSON.parse(line);
      if (e && typeof e === 'object' && !Array.isArray(e)) out.push(e);
    } catch {
      // a line cut by a stop mid-write: the resumed run rewrites what follows its checkpoint
    }
  }
  return out;
}

/**
 * The run config `train` makes from a run's flags (cli/train.ts: the run-setting flags through the schema, defaults
 * filled, `init` as given), to compare with the config a run directory records. @throws UsageError / ConfigError
 * for flags train would refuse (never for the table's own).
 */
function configOf(args: readonly string[]): Record<string, unknown> {
  const given: Record<string, unknown> = parseArgs(args, TRAIN_SPEC);
  return { ...parseRunConfig(configFieldsOf(given)), init: given.init };
}

/**
 * The evaluation steps a finished run of `steps` steps holds (train: step 0, every `every` steps, and the last step).
 */
export function evalSteps(steps: number, every: number): number[] {
  const out = [0];
  for (let k = every; k < steps; k += every) out.push(k);
  out.push(steps);
  return out;
}

/** One run of the table. */
interface Job {
  method: string;
  seed: number;
  dir: string;
  args: string[];
}

/**
 * Where a run of `steps` steps stands: finished (its events hold `done`, or a checkpoint at its last step — the run
 * stopped after it but before writing `done`), started (a run directory), or new.
 */
function stateOf(j: Job, steps: number): 'done' | 'started' | 'new' {
  const evs = readEvents(path.join(j.dir, 'events.jsonl'));
  if (
    evs.some((e) => e.event === 'done' || (e.event === 'checkpoint' && typeof e.step === 'number' && e.step >= steps))
  )
    return 'done';
  return fs.existsSync(path.join(j.dir, 'run.json')) ? 'started' : 'new';
}

/**
 * The step a job's next call starts from: its latest checkpoint whose two files are on disk (train --resume
 * continues there; the files are not committed, so a fresh clone holds the events but not the checkpoints), else 0.
 */
function startStep(j: Job): number {
  let k = 0;
  for (const e of readEvents(path.join(j.dir, 'events.jsonl')))
    if (
      e.event === 'checkpoint' &&
      typeof e.step === 'number' &&
      e.step > k &&
      fs.existsSync(path.join(j.dir, `ckpt-${e.step}.safetensors`)) &&
      fs.existsSync(path.join(j.dir, `ckpt-${e.step}.state`))
    )
      k = e.step;
  return k;
}

/** The arguments of tsx that run train for a job: `cli/train.ts`, then its flags (fresh, or resumed). */
function trainArgv(j: Job, resume: boolean): string[] {
  return resume
    ? ['cli/train.ts', '--resume', j.dir, '--json']
    : ['cli/train.ts', ...mergeFlags(j.args, ['--run-dir', j.dir, '--json'])];
}

/**
 * Runs `npm run train` for a job (fresh or resumed); resolves with its exit code. Progress lines as it goes;
 * `onStep` with each step trained.
 */
function runJob(
  j: Job,
  resume: boolean,
  total: number,
  onProgress: (line: string) => void,
  onStep: (step: number) => void = () => {},
): Promise<number> {
  const args = trainArgv(j, resume);
  const child = spawn('node_modules/.bin/tsx', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let buf = '',
    err = '';
  let first: { step: number; ms: number } | undefined;
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        const e = JSON.parse(line);
        if (e.event === 'step') {
          first ??= { step: e.step, ms: e.elapsedMs };
          onStep(e.step);
        }
        if (e.event === 'step' && (e.step % 10 === 0 || e.step === total)) {
          // the pace of this call's own steps (a resumed run's step count starts at its checkpoint)
          const eta =
            e.step > first!.step ? ((total - e.step) * (e.elapsedMs - first!.ms)) / (e.step - first!.step) / 1000 : NaN;
          onProgress(
            `${j.method}-${j.seed}: step ${e.step}/${total}, train success ${(100 * e.successRate).toFixed(0)}%, ` +
              `ETA ${Number.isFinite(eta) ? `${(eta / 60).toFixed(1)} min` : '–'}`,
          );
        } else if (e.event === 'eval') {
          const rates = SPLITS.map((s) => `${s} ${(100 * (e.splits?.[s]?.successRate ?? NaN)).toFixed(1)}%`);
          onProgress(`${j.method}-${j.seed}: eval @ ${e.step}: ${rates.join(', ')}`);
        }
      } catch {
        // not an event line
      }
    }
  });
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
  return new Promise((resolve) =>
    child.on('close', (code) => {
      if (code !== 0)
        onProgress(`${j.method}-${j.seed}: train exited ${code}: ${err.trim().split('\n').slice(-2).join(' ')}`);
      resolve(code ?? 1);
    }),
  );
}

/** The evaluations of a finished run, from its events. */
function evalsOf(j: Job): RunEvals {
  const evals = readEvents(path.join(j.dir, 'events.jsonl'))
    .filter((e) => e.event === 'eval' && typeof e.step === 'number' && e.splits && typeof e.splits === 'object')
    .map((e) => ({ step: e.step as number, splits: e.splits as RunEvals['evals'][number]['splits'] }));
  return { method: j.method, seed: j.seed, evals };
}

/** curves.svg: mean test success over seeds per method and evaluation step (vega-lite, rendered headless). */
async function curves(runs: RunEvals[]): Promise<string> {
  const values = runs.flatMap((r) =>
    r.evals.flatMap((e) =>
      SPLITS.filter((s) => Object.hasOwn(e.splits, s)).map((s) => ({
        method: r.method,
        seed: r.seed,
        step: e.step,
        split: s,
        success: 100 * e.splits[s].successRate,
      })),
    ),
  );
  const spec = vl.compile({
    data: { values },
    width: 320,
    height: 220,
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'step', type: 'quantitative', title: 'training step' },
      y: { aggregate: 'mean', field: 'success', type: 'quantitative', title: 'success % (mean over seeds)' },
      color: { field: 'method', type: 'nominal' },
      column: { field: 'split', type: 'nominal', title: null },
    },
  } as vl.TopLevelSpec).spec;
  return new vega.View(vega.parse(spec), { renderer: 'none' }).toSVG();
}

/** The flags whose default depends on --protocol. */
type ProtocolDefault = 'steps' | 'tasks' | 'eval-every' | 'episodes' | 'out';

/** The parsed flags, with the protocol's defaults and the env's preset filled in. */
type ExperimentArgs = Omit<ParsedArgs<typeof SPEC>, ProtocolDefault | 'preset'> &
  Omit<Protocol['defaults'], 'preset'> & { preset: string };

/** The env's preset with the most task types (the first such in its order): the table's default preset. */
export function fullestPreset(spec: EnvSpec): string {
  return spec.presets.reduce((best, p) => (spec.taskTypes(p).length > spec.taskTypes(best).length ? p : best));
}

/** The table being made: the flags, the command line, the output folder, its header lines and its runs. */
interface Table {
  a: ExperimentArgs;
  argv: string[];
  out: string;
  header: string[];
  jobs: Job[];
  /** The shipped base policy's weights file and the hex sha256 its manifest gives; null without a base policy. */
  base: { file: string; sha256: string } | null;
}

/** The usage text of the one experiment. */
const tableUsage = () => usage('npm run experiment -- opid-table', SPEC);

/** --help: the usage on stdout; null, as nothing more is to be done. */
function printUsage(): null {
  process.stdout.write(tableUsage() + '\n');
  return null;
}

/** Parse: the experiment's name, then its flags (bad input exits 2 with the usage); null once --help is printed. */
function parseExperimentArgs(argv: string[]): ExperimentArgs | null {
  if (argv[0] === '--help' || argv[0] === '-h') return printUsage();
  if (argv[0] !== 'opid-table') {
    const got = argv[0] === undefined ? 'nothing' : `"${argv[0].slice(0, 40)}"`;
    fail(
      `the first argument names the experiment: opid-table (got ${got})` +
        `${didYouMean(argv[0] ?? '', ['opid-table'])}\n${tableUsage()}`,
    );
  }
  let a;
  try {
    a = parseArgs(argv.slice(1), SPEC);
  } catch (e) {
    if (e instanceof UsageError) fail(`${e.message}\n${tableUsage()}`);
    throw e;
  }
  if (a.help) return printUsage();
  const d = PROTOCOL[a.protocol].defaults;
  let preset: string;
  try {
    const spec = getEnvSpec(a.env);
    if (a.preset === undefined && d.preset !== undefined && !spec.presets.includes(d.preset))
      fail(
        `--protocol ${a.protocol} runs on ${DEFAULT_ENV}'s "${d.preset}" preset unless --preset names another, ` +
          `and ${spec.name} has no "${d.preset}": pass --preset (one of ${spec.presets.join(', ')}) or ` +
          `--env ${DEFAULT_ENV}`,
      );
    preset = presetFor(spec, a.preset ?? d.preset ?? fullestPreset(spec));
  } catch (e) {
    if (e instanceof UsageError) fail(`${e.message}\n${tableUsage()}`);
    throw e;
  }
  return {
    ...a,
    preset,
    steps: a.steps ?? d.steps,
    tasks: a.tasks ?? d.tasks,
    'eval-every': a['eval-every'] ?? d['eval-every'],
    episodes: a.episodes ?? d.episodes,
    out: a.out ?? d.out,
  };
}

/** Resolve: --out, a folder made with its runs/ folder inside; exits 2 when it cannot be. */
function resolveOut(a: ExperimentArgs): string {
  const out = a.out;
  const example = PROTOCOL[a.protocol].defaults.out;
  if (out.trim() === '') fail(`--out needs a folder (got an empty value); give a path, e.g. --out ${example}`);
  try {
    fs.mkdirSync(path.join(out, 'runs'), { recursive: true });
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    fail(
      `--out ${out}: cannot make the folder ${path.join(out, 'runs')} (${why}); ` +
        `give a folder (new or holding this table)`,
    );
  }
  return out;
}

/** The train flags every run of the table protocol shares (from the shipped base policy when the preset has one). */
function commonFlags(a: ExperimentArgs, hasBase: boolean): string[] {
  return [
    '--env',
    a.env,
    '--preset',
    a.preset,
    '--steps',
    String(a.steps),
    '--tasks',
    String(a.tasks),
    '--group',
    String(a.group),
    '--mini-batches',
    String(Math.min(8, a.tasks * a.group)),
    '--eval-every',
    String(a['eval-every']),
    '--eval-episodes',
    String(a.episodes),
    '--checkpoint-every',
    String(a['checkpoint-every']),
    '--backend',
    'wasm',
    '--init',
    hasBase ? 'base' : 'scratch',
  ];
}

/**
 * The train flags every run of the reference protocol shares (docs/experiments/opid-protocols.md, `COMMON`): the
 * authors' setting where the playground expresses it; mini-batches 13 (≈ their 256 step rows at the base's trajectory
 * length), or B·G when that is fewer (a train run takes at most B·G).
 */
function referenceFlags(a: ExperimentArgs, hasBase: boolean): string[] {
  const flags: [string, string | number][] = [
    ['env', a.env],
    ['preset', a.preset],
    ['model', 'nano'],
    ['steps', a.steps],
    ['tasks', a.tasks],
    ['group', a.group],
    ['history', 5],
    ['decoding', 'admissible'], // free decoding: the base scores 0% (docs/experiments/opid-protocols.md)
    ['temperature', 1],
    ['adv-group-by', 'step'],
    ['adv-eps', '0.000001'],
    ['invalid-penalty', 0],
    ['step-adv-weight', 0],
    ['clip', 0.2],
    ['clip-high', 0],
    ['dual-clip', 3],
    ['loss-agg', 'token-mean'],
    ['mini-batches', Math.min(13, a.tasks * a.group)],
    ['ppo-epochs', 1],
    ['lr', '0.0001'],
    ['lr-schedule', 'constant'],
    ['adam-beta1', 0.9],
    ['adam-beta2', 0.999],
    ['max-grad-norm', 1],
    ['old-logprobs', 'sampler'],
    ['eval-every', a['eval-every']],
    ['eval-episodes', a.episodes],
    ['eval-temperature', 0.4],
    ['checkpoint-every', a['checkpoint-every']],
    ['backend', 'wasm'],
    ['init', hasBase ? 'base' : 'scratch'],
  ];
  return flags.flatMap(([k, v]) => [`--${k}`, String(v)]);
}

/** The protocols --protocol names. */
const PROTOCOL: Record<(typeof PROTOCOLS)[number], Protocol> = {
  table: {
    title: (a) => `OPID ${a.env} table`,
    methods: METHODS,
    baseline: 'grpo',
    common: commonFlags,
    rowsLine: () => [`OPID rows also: ${OPID_SETTINGS.join(' ')}`],
    defaults: { steps: 100, tasks: 4, 'eval-every': 25, episodes: 210, out: 'runs/opid-table' },
  },
  reference: {
    title: () => "OPID authors' reference protocol: decomposition table",
    methods: REFERENCE_METHODS,
    baseline: 'grpo-mean',
    comparisons: REFERENCE_COMPARISONS,
    common: referenceFlags,
    rowsLine: () => [
      "protocol: reference, the OPID authors' ALFWorld protocol (docs/experiments/opid-protocols.md); " +
        "the rows' own flags:",
      ...Object.entries(REFERENCE_METHODS).map(([m, f]) => `${m}: ${f.join(' ')}`),
    ],
    defaults: { steps: 160, tasks: 16, 'eval-every': 20, episodes: 210, out: 'runs/opid-table-reference' },
  },
  'map-easy': {
    title: (a) => `Map of regimes: where does OPID's dense signal help? (${a.env}/${a.preset})`,
    methods: MAP_METHODS,
    baseline: 'grpo',
    comparisons: MAP_COMPARISONS,
    last3: true,
    common: commonFlags,
    rowsLine: () => [
      'protocol: map-easy, where OPID\'s dense signal helps (docs/experiments/opid-protocols.md, "Map of regimes"); ' +
        "the rows' own flags:",
      ...Object.entries(MAP_METHODS).map(([m, f]) => `${m}: ${f.join(' ')}`),
      'endpoint, fixed in advance: each OPID row − grpo, paired by seed, on test-unseen, at the mean of each ' +
        "run's last three evaluations after step 0 (the first section); the final and the best evaluation follow",
    ],
    defaults: { steps: 80, tasks: 4, 'eval-every': 20, episodes: 400, out: 'runs/opid-map-easy', preset: 'easy' },
  },
  'map-update': {
    title: (a) => `Map of regimes: does the oracle's collapse belong to the update? (${a.env}/${a.preset})`,
    methods: UPDATE_METHODS,
    baseline: 'grpo',
    comparisons: UPDATE_COMPARISONS,
    last3: true,
    common: commonFlags,
    rowsLine: () => [
      "protocol: map-update, the update's variants beyond the paper (docs/experiments/opid-protocols.md, " +
        '"Map of regimes"); the rows\' own flags:',
      ...Object.entries(UPDATE_METHODS).map(([m, f]) => `${m}: ${f.join(' ')}`),
      'endpoint, fixed in advance: each oracle row − grpo and each variant − opid-oracle-l1, paired by seed, on ' +
        "test-unseen, at the mean of each run's last three evaluations after step 0 (the first section)",
    ],
    defaults: { steps: 50, tasks: 4, 'eval-every': 10, episodes: 210, out: 'runs/opid-map-update' },
  },
};

/** The table's header: the command, the start, the size and evaluations, the train flags and the rows' own flags. */
function headerLines(a: ExperimentArgs, argv: string[], common: string[], hasBase: boolean): string[] {
  const every = a['eval-every'];
  const evaluation =
    every >= a.steps
      ? 'at step 0 and the last step'
      : `every ${every === 1 ? 'step' : `${every} steps`}${a.steps % every ? ' and at the last step' : ''}`;
  const start = hasBase
    ? 'from the shipped base policy'
    : `FROM SCRATCH: this preset has no shipped base policy (npm run pretrain -- --env ${a.env} --preset ` +
      `${a.preset} makes one)`;
  return [
    `command: npm run experiment -- ${shellLine(argv)}`,
    `${a.env}/${a.preset}, nano, ${start}`,
    `${counted(a.steps, 'step')} of B ${a.tasks} × G ${a.group}, ${counted(a.seeds, 'seed')} per ` +
      `method, evaluation ${evaluation} ` +
      `on ${counted(a.episodes, 'episode')} per split at T 0.4`,
    `train flags: ${common.join(' ')}`,
    ...PROTOCOL[a.protocol].rowsLine(),
    ...(a.protocol === 'reference' && a.env !== DEFAULT_ENV
      ? [
          `note: the reference protocol copies the OPID authors' ALFWorld settings, made for ${DEFAULT_ENV}; on ` +
            `${a.env} they are kept as they are (history 5, λ 0.001, KL and entropy, B 16 × G 8)`,
        ]
      : []),
    ...fewEvalsNote(a),
  ];
}

/**
 * For a protocol whose endpoint is the mean of the last three evaluations after step 0 (`last3`): a note when
 * --steps and --eval-every give fewer than three such evaluations (evalSteps), saying how many the endpoint will
 * average and the --steps that gives three. None otherwise.
 */
export function fewEvalsNote(a: Pick<ExperimentArgs, 'protocol' | 'steps' | 'eval-every'>): string[] {
  const every = a['eval-every'];
  const after = evalSteps(a.steps, every).slice(1);
  if (!PROTOCOL[a.protocol].last3 || after.length >= 3) return [];
  return [
    `note: --steps ${a.steps} with evaluation every ${every} gives ${counted(after.length, 'evaluation')} after ` +
      `step 0 (step${after.length > 1 ? 's' : ''} ${after.join(', ')}): the endpoint, the mean of the last ` +
      'three, will average ' +
      `${after.length === 1 ? 'that one' : `those ${after.length}`}; give --steps above ${2 * every} (or a smaller ` +
      '--eval-every) for three',
  ];
}

/**
 * `common` then `own` as one train argv in which each flag is given once (train refuses a flag given twice,
 * cli/args.ts): a flag of `own` (a row's) wins, the same flag of `common` (the shared ones) is left out. `common` is
 * a list of `--flag value` pairs and `--flag=value` words (as PROTOCOL's tables write them); `own` may also hold a
 * bare switch (`--json`).
 */
export function mergeFlags(common: readonly string[], own: readonly string[]): string[] {
  const nameOf = (w: string) => w.slice(2).split('=')[0];
  const ownNames = new Set(own.filter((w) => w.startsWith('--')).map(nameOf));
  const out: string[] = [];
  for (let i = 0; i < common.length; i++) {
    const w = common[i];
    const paired = w.startsWith('--') && !w.includes('=');
    if (w.startsWith('--') && ownNames.has(nameOf(w))) {
      if (paired) i++; // its value goes with it
      continue;
    }
    out.push(w);
  }
  return [...out, ...own];
}

/**
 * A row's flags with K (`--max-step-skills`) as the OPID paper sets it for the env's family
 * (EnvSpec.opidMaxStepSkills) added when the row's algorithm reads it (run config `algorithmsUsing`) and the row does
 * not set it; the row's flags as they are otherwise (and on an env without it).
 */
export function withEnvStepSkills(env: string, flags: readonly string[]): string[] {
  const k = getEnvSpec(env).opidMaxStepSkills;
  const algo = flags[flags.indexOf('--algo') + 1];
  const reads = flags.includes('--algo') && (algorithmsUsing('maxStepSkills') ?? []).includes(algo as never);
  if (k === undefined || !reads || flags.some((f) => f.split('=')[0] === '--max-step-skills')) return [...flags];
  return [...flags, '--max-step-skills', String(k)];
}

/** Every run of the table: each seed of each method, with its run directory and its --save-best file. */
function makeJobs(a: ExperimentArgs, out: string, common: string[]): Job[] {
  const jobs: Job[] = [];
  for (let seed = 1; seed <= a.seeds; seed++)
    for (const [method, flags] of Object.entries(PROTOCOL[a.protocol].methods))
      jobs.push({
        method,
        seed,
        dir: path.join(out, 'runs', `${method}-${seed}`),
        args: mergeFlags(common, [
          ...withEnvStepSkills(a.env, flags),
          '--seed',
          String(seed),
          '--save-best',
          path.join(out, `${method}-${seed}-best.safetensors`),
        ]),
      });
  return jobs;
}

/**
 * The train argv of every run a call `npm run experiment -- <argv>` would start fresh (`train <args> --run-dir DIR
 * --json`), for a preset with (`hasBase`) or without a shipped base policy, without reading or writing any folder.
 * `argv` starts with the experiment's name (`opid-table`). Bad flags exit 2 as the command does.
 */
export function plannedTrainArgvs(
  argv: string[],
  hasBase: boolean,
): { method: string; seed: number; argv: string[] }[] {
  const a = parseExperimentArgs(argv);
  if (!a) return [];
  return makeJobs(a, a.out, PROTOCOL[a.protocol].common(a, hasBase)).map((j) => ({
    method: j.method,
    seed: j.seed,
    argv: trainArgv(j, false).slice(1),
  }));
}

/** The fix named when a run folder already there cannot be used. */
const MOVE_AWAY = "move the run's folder away (it is trained again from step 0) or use another --out";

/**
 * Every run folder already there is checked before anything is trained or written: its events.jsonl line by line
 * (a finished run is never trained again, so a damaged line would go into the table as it is), and its config —
 * run.json's, else the start line's — field by field against the one this table makes for it (runs made with other
 * settings, another seed or another method are refused rather than relabelled).
 */
function checkRecordedRuns(t: Table): void {
  const { jobs, out } = t;
  const changed: string[] = [];
  for (const j of jobs) {
    const cfg = recordedConfig(j);
    if (!cfg) continue;
    const want = configOf(j.args);
    // Fields a run's config does not hold are settings added after it was made: they are not compared.
    for (const [k, v] of Object.entries(want))
      if (Object.hasOwn(cfg, k) && JSON.stringify(cfg[k]) !== JSON.stringify(v))
        changed.push(`${j.method}-${j.seed} ${k} ${String(cfg[k])} → ${String(v)}`);
  }
  checkRecordedBase(t);
  if (changed.length)
    fail(
      `${out} holds runs made with other settings (${changed.slice(0, 6).join('; ')}` +
        `${changed.length > 6 ? `; and ${changed.length - 6} more` : ''}); ` +
        `give the settings they were made with to continue that table, or another --out for a new one`,
    );
}

/**
 * The runs that began from the base policy must have begun from the one shipped now: a run.json whose `initSha256`
 * (recorded since the field exists; older runs are not compared) is not the base's is refused, naming both hashes —
 * a table over two base policies would compare methods that did not start from the same weights.
 */
function checkRecordedBase({ jobs, out, base }: Table): void {
  if (!base) return;
  for (const j of jobs) {
    const f = path.join(j.dir, 'run.json');
    if (!fs.existsSync(f) || j.args[j.args.lastIndexOf('--init') + 1] !== 'base') continue;
    let was: unknown;
    try {
      was = JSON.parse(fs.readFileSync(f, 'utf8'))?.initSha256;
    } catch {
      continue; // recordedConfig names a run.json that is not JSON
    }
    if (was === undefined || was === base.sha256) continue;
    if (typeof was !== 'string' || !/^[0-9a-f]{64}$/.test(was))
      fail(
        `${f}: field "initSha256" must be the hex sha256 of the weights the run began from (64 digits 0-9a-f), got ` +
          `${JSON.stringify(was).slice(0, 80)}; restore the file, or ${MOVE_AWAY}`,
      );
    fail(
      `${out} holds runs begun from another base policy (${f}: "initSha256" ${was.slice(0, 8)}…; ` +
        `${shownPath(base.file)} is now ${base.sha256.slice(0, 8)}…); restore that base policy (its weights and ` +
        `manifest, e.g. from git history) to continue that table, ${MOVE_AWAY}`,
    );
  }
}

/** The shipped base policy of the table's env and preset: its weights file and its manifest's sha256, else null. */
function shippedBase(a: ExperimentArgs): Table['base'] {
  const m = path.join(PUBLIC_DIR, baseManifestPath(getEnvSpec(a.env), a.preset));
  if (!fs.existsSync(m)) return null;
  let manifest: unknown;
  try {
    manifest = JSON.parse(fs.readFileSync(m, 'utf8'));
  } catch {
    return null; // train refuses it, naming the file
  }
  const get = (k: string) =>
    manifest && typeof manifest === 'object' && Object.hasOwn(manifest, k)
      ? (manifest as Record<string, unknown>)[k]
      : undefined;
  const file = get('file'),
    sha = get('sha256');
  if (typeof file !== 'string' || typeof sha !== 'string' || !/^[0-9a-f]{64}$/.test(sha)) return null;
  return { file: path.join(path.dirname(m), file), sha256: sha };
}

/**
 * Whether `out`/runs/`name` holds a run: a run.json or an events.jsonl (what train writes first). A folder with
 * neither (an empty one, made by hand or left by a run stopped before its start) is no run of any protocol.
 */
function holdsRun(out: string, name: string): boolean {
  const dir = path.join(out, 'runs', name);
  return ['run.json', 'events.jsonl'].some((f) => fs.existsSync(path.join(dir, f)));
}

/**
 * An --out folder holds one protocol's table: run folders named after another protocol's methods that this one does
 * not have (`runs/<method>-<seed>`, holding a run: `holdsRun`), or a table.json that records another protocol (none
 * recorded: `table`), are refused before anything is trained or written.
 */
function checkProtocol({ a, out }: Table): void {
  const mine = Object.keys(PROTOCOL[a.protocol].methods);
  let recorded: unknown;
  try {
    recorded = JSON.parse(fs.readFileSync(path.join(out, 'table.json'), 'utf8')).protocol ?? 'table';
  } catch {
    // no table.json yet, or one this call rewrites
  }
  for (const other of PROTOCOLS.filter((p) => p !== a.protocol)) {
    // a method both protocols have (grpo) tells neither apart: its run's config is checked instead (checkRecordedRuns)
    const methods = Object.keys(PROTOCOL[other].methods).filter((m) => !mine.includes(m));
    const theirs = fs.readdirSync(path.join(out, 'runs')).filter((d) => {
      const cut = d.lastIndexOf('-');
      const method = cut > 0 && /^\d+$/.test(d.slice(cut + 1)) ? d.slice(0, cut) : null;
      return method !== null && methods.includes(method) && holdsRun(out, d);
    });
    const what = theirs.length
      ? `runs ${theirs.slice(0, 4).join(', ')}${theirs.length > 4 ? ', …' : ''}`
      : 'table.json';
    if (theirs.length || recorded === other)
      fail(
        `${out} holds a table of --protocol ${other} (${what}), not of --protocol ${a.protocol}; give --protocol ` +
          `${other} to continue that table, or another --out for a new one`,
      );
  }
}

/**
 * The config a run folder records: run.json's, else its events' start line's; none for a new run. A line of
 * events.jsonl that is not a valid event, or a run.json that is not JSON, exits 2.
 */
function recordedConfig(j: Job): Record<string, unknown> | undefined {
  const evFile = path.join(j.dir, 'events.jsonl');
  if (fs.existsSync(evFile)) {
    try {
      parseEvents(fs.readFileSync(evFile, 'utf8'), evFile);
    } catch (e) {
      fail(
        `${e instanceof RecordError ? e.problem : (e as Error).message}; repair or delete that line (a run ` +
          `continues from its latest checkpoint), or ${MOVE_AWAY}`,
      );
    }
  }
  const f = path.join(j.dir, 'run.json');
  let cfg: Record<string, unknown> | undefined;
  if (fs.existsSync(f)) {
    const text = fs.readFileSync(f, 'utf8');
    try {
      const r = JSON.parse(text);
      if (r && typeof r === 'object' && Object.hasOwn(r, 'config') && r.config && typeof r.config === 'object')
        cfg = r.config;
    } catch (e) {
      const where = jsonErrorWhere(text) ?? `(${(e as Error).message})`;
      fail(`${f}: not valid JSON ${where}; restore the file, or ${MOVE_AWAY}`);
    }
  }
  cfg ??= readEvents(evFile).find((e) => e.event === 'start' && e.config && typeof e.config === 'object')?.config as
    Record<string, unknown> | undefined;
  return cfg;
}

/**
 * A run with no checkpoint on disk (stopped before its first, or a checkout without the uncommitted ckpt-<k> files)
 * has nothing to continue from: it starts again from step 0. A finished
 * run must hold every evaluation the table reads (a deleted line would move the final row to an earlier one).
 */
function prepareRuns({ a, jobs }: Table): void {
  for (const j of jobs)
    if (stateOf(j, a.steps) === 'started' && startStep(j) === 0) {
      process.stdout.write(
        `${j.method}-${j.seed}: no checkpoint to continue from (stopped before its first, or its ckpt-<k> files ` +
          `are not in this checkout); training it again from step 0\n`,
      );
      fs.rmSync(j.dir, { recursive: true, force: true });
    }
  const needed = evalSteps(a.steps, a['eval-every']);
  for (const j of jobs) {
    if (stateOf(j, a.steps) !== 'done') continue;
    const have = new Set(evalsOf(j).evals.map((e) => e.step));
    const lost = needed.filter((k) => !have.has(k));
    if (lost.length)
      fail(
        `${path.join(j.dir, 'events.jsonl')}: the run finished but holds no evaluation at step ${lost.join(', ')}; ` +
          `restore the file, or ${MOVE_AWAY}`,
      );
  }
}

/**
 * Run: the unfinished runs, `--parallel` at a time (a failed run is not retried in this call), with the total ETA
 * after each and the table so far written after each that succeeded; then the whole table. The failed runs' names.
 */
async function runTable(t: Table): Promise<string[]> {
  const { a, jobs } = t;
  const todo = jobs.filter((j) => stateOf(j, a.steps) !== 'done');
  process.stdout.write(
    `${jobs.length - todo.length} of ${counted(jobs.length, 'run')} already finished; ${todo.length} to run, ` +
      `${a.parallel} ` +
      `at a time\n`,
  );
  const t0 = Date.now();
  let next = 0,
    finished = 0,
    failed = 0,
    trained = 0;
  const failedNames: string[] = [];
  const at = new Map(todo.map((j) => [j, startStep(j)] as const));
  const eta = () => {
    const m = totalEtaMinutes(
      [...at.values()].reduce((n, k) => n + Math.max(0, a.steps - k), 0),
      trained,
      Date.now() - t0,
    );
    return Number.isFinite(m) ? `${m.toFixed(1)} min` : '–';
  };
  let tableWrites: Promise<void> = Promise.resolve();
  const worker = async () => {
    while (next < todo.length) {
      const j = todo[next++];
      const code = await runJob(
        j,
        stateOf(j, a.steps) === 'started',
        a.steps,
        (l) => process.stdout.write(l + '\n'),
        (step) => {
          trained += Math.max(0, step - (at.get(j) ?? step));
          at.set(j, step);
        },
      );
      finished++;
      if (code !== 0) {
        failed++;
        failedNames.push(`${j.method}-${j.seed}`);
      }
      at.set(j, a.steps); // a failed run is not retried in this call
      process.stdout.write(
        `runs finished ${finished}/${todo.length}${failed ? ` (${failed} failed)` : ''}; total ETA ${eta()}\n`,
      );
      // The table so far, after every finished run, so a call stopped later still leaves it (INCOMPLETE) in DIR.
      if (code === 0)
        tableWrites = tableWrites
          .then(() => writeTable(t))
          .catch(
            (e) => void process.stderr.write(`experiment: the table so far was not written: ${(e as Error).message}\n`),
          );
    }
  };
  await Promise.all(Array.from({ length: Math.min(a.parallel, todo.length) }, worker));
  await tableWrites;
  await writeTable(t);
  return failedNames;
}

/** Writes DIR/<method>-<seed>.jsonl of the finished runs, table.md, table.json and curves.svg; one at a time. */
async function writeTable({ a, argv, out, header, jobs }: Table): Promise<void> {
  for (const j of jobs)
    if (stateOf(j, a.steps) === 'done')
      fs.copyFileSync(path.join(j.dir, 'events.jsonl'), path.join(out, `${j.method}-${j.seed}.jsonl`));
  const runs = jobs
    .filter((j) => stateOf(j, a.steps) === 'done')
    .map(evalsOf)
    .filter((r) => r.evals.length > 0);
  const missing = jobs.length - runs.length;
  const head = missing
    ? [
        ...header,
        `INCOMPLETE: ${missing} of ${counted(jobs.length, 'run')} ${missing === 1 ? 'has' : 'have'} not finished; ` +
          `call the command again to continue them`,
      ]
    : header;
  const p = PROTOCOL[a.protocol];
  const table = makeResultsTable({
    header: head,
    command: `npm run experiment -- ${shellLine(argv)}`,
    // the table protocol's file is as before it had a name: its absence reads as `table`
    protocol: a.protocol === 'table' ? undefined : a.protocol,
    baseline: p.baseline,
    splits: SPLITS,
    methods: Object.keys(p.methods),
    runs,
    comparisons: p.comparisons,
    last3: p.last3,
  });
  writeAtomic(path.join(out, 'table.md'), new TextEncoder().encode(resultsTableMarkdown(table, p.title(a))));
  writeAtomic(path.join(out, 'table.json'), new TextEncoder().encode(resultsTableJson(table)));
  if (runs.length) writeAtomic(path.join(out, 'curves.svg'), new TextEncoder().encode(await curves(runs)));
}

/** Print: table.md, then the failed runs (exit 1) when any failed. */
function printTable(out: string, failedNames: string[]): void {
  process.stdout.write(fs.readFileSync(path.join(out, 'table.md'), 'utf8'));
  const failed = failedNames.length;
  if (failed) {
    process.stderr.write(
      `experiment: ${failed} run${failed === 1 ? '' : 's'} failed and ${failed === 1 ? 'is' : 'are'} not ` +
        `in the table: ${failedNames.join(', ')} (why: the "train exited" lines above); call the command ` +
        `again to retry ${failed === 1 ? 'it' : 'them'}\n`,
    );
    process.exit(1);
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const a = parseExperimentArgs(argv);
  if (!a) return;
  const out = resolveOut(a);
  const hasBase = fs.existsSync(path.join(PUBLIC_DIR, baseManifestPath(getEnvSpec(a.env), a.preset)));
  const common = PROTOCOL[a.protocol].common(a, hasBase);
  const header = headerLines(a, argv, common, hasBase);
  process.stdout.write(header.map((h) => `${h}\n`).join(''));
  const t: Table = { a, argv, out, header, jobs: makeJobs(a, out, common), base: hasBase ? shippedBase(a) : null };
  checkProtocol(t);
  checkRecordedRuns(t);
  prepareRuns(t);
  printTable(out, await runTable(t));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  exitOnClosedStdout();
  main().catch((e) => {
    process.stderr.write(`experiment: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
