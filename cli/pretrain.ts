/**
 * `npm run pretrain -- [--env ENV] [--preset P] --model nano --seed S [--init WEIGHTS] [--backend wasm|cpu]
 * [--json]`: behaviour cloning of the base policy (from a fresh seeded init, or from WEIGHTS) on expert, noisy-expert
 * and hint-conditioned demonstrations, then measurement (success with hints none|correct per split and task type, skill
 * sensitivity in nats), then the weights and a manifest (sha256, vocabulary hash, env versions, the exact command, the
 * measurements) are written to `--out` (default the env's base-policy files for the preset,
 * `public/base/<stem>.safetensors` + `.json`: core/pretrain/base.ts `baseStem`). Prints the sha256. `--env` takes
 * every registered environment, `--preset` its presets (default: the env's own).
 * Deterministic for a given command on one backend. Bad input: a message naming the flag, exit code 2.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, usage, UsageError, USAGE_EXIT_CODE, type ParsedArgs, shellLine } from './args';
import { exitOnClosedStdout, writeAtomic } from './files';
import { alignColumns } from './text-table';
import { runFileAsWeights } from './packfile';
import { notAWeightsFile, notSafetensors, otherEnvWeights, type WeightsFlagOptions } from './weightsfile';
import { setupBackend, NODE_BACKENDS } from './backend';
import { ENV_SPECS, getEnvSpec } from '../src/core/envs/registry';
import { ENV_FLAG, PRESET_FLAG, presetFor } from './env-flags';
import {
  buildTokenizer,
  createPolicy,
  disposePolicy,
  loadPolicy,
  savePolicy,
  type PolicyHandle,
} from '../src/core/model/policy';
import { MODEL_SIZES } from '../src/core/model/config';
import { canGrow, growWeights, type GrownFrom } from '../src/core/model/grow';
import { DEFAULT_CONFIG, fieldSchema, type RunConfigKey } from '../src/core/run/config';
import { Rng } from '../src/core/rng';
import { vocabHash } from '../src/core/tokenizer/tokenizer';
import { pretrain, DEFAULT_PRETRAIN, maxActionTokensFor, type PretrainConfig } from '../src/core/pretrain/pretrain';
import { parseMix } from '../src/core/pretrain/demos';
import { checkTypeWeights, parseTypeWeights } from '../src/core/pretrain/task-pick';
import { measureHinted, skillSensitivity } from '../src/core/pretrain/measure';
import { baseWeightsPath, type BaseManifest } from '../src/core/pretrain/base';
import { PUBLIC_DIR, PUBLIC_DIR_VAR, folderProblem, loadBaseFiles, publicDirNamed, shownPath } from './base';
import { sha256Hex } from '../src/core/sha256';
import {
  NOISE_ACTIONS,
  RENAME_NAMES,
  type EnvSpec,
  type NoiseActions,
  type RenameNames,
  type Split,
} from '../src/core/envs/types';
import { counted } from '../src/core/count-text';

const D = DEFAULT_PRETRAIN;
/** pretrain --init's word besides a weights path: `base`, the env's base policy for the preset. */
const INIT_FLAG: WeightsFlagOptions = { others: ['base'] };
exitOnClosedStdout();

/** The schema's range of a numeric run-config field, as FlagTable bounds. */
const range = (key: RunConfigKey) => ({ min: fieldSchema(key).minimum, max: fieldSchema(key).maximum });

const SPEC = {
  env: ENV_FLAG,
  preset: PRESET_FLAG,
  model: { type: 'string', help: 'model size', default: DEFAULT_CONFIG.model, choices: MODEL_SIZES },
  seed: { type: 'int', help: 'seed', default: D.seed, ...range('seed') },
  backend: { type: 'string', help: 'tfjs backend', default: 'wasm', choices: NODE_BACKENDS },
  tasks: { type: 'int', help: 'train-split tasks used for demonstrations', default: D.tasks, min: 1, max: 100000 },
  iters: { type: 'int', help: 'optimiser iterations', default: D.iters, min: 1, max: 100000 },
  batch: { type: 'int', help: 'samples per iteration', default: D.batch, min: 1, max: 4096 },
  lr: { type: 'float', help: 'Adam learning rate', default: D.learningRate, ...range('learningRate') },
  noise: { type: 'float', help: 'noisy demonstrator random-action probability', default: D.noise, min: 0, max: 1 },
  'noise-actions': {
    type: 'string',
    help:
      "what the noisy demonstrator's random steps take: random (a uniformly random admissible action, an open form " +
      "completed with random words of the task line) or plausible (the env's plausible mistake: a search for, or an " +
      `answer of, a name or year on screen; envs that have one: ${ENV_SPECS.filter((e) => e.plausibleMistake)
        .map((e) => e.name)
        .join(', ')})`,
    default: NOISE_ACTIONS[0],
    choices: NOISE_ACTIONS,
  },
  'step-hint-rate': {
    type: 'float',
    help: "share of a step-hint episode's steps that carry the step skill",
    default: D.stepHintRate,
    min: 0,
    max: 1,
  },
  'step-noise': {
    type: 'float',
    help: "share of a step-hint episode's steps that are random and not demonstrated (off-path states)",
    default: D.stepNoise,
    min: 0,
    max: 0.95,
  },
  'episode-noise': {
    type: 'float',
    help:
      "share of an episode-skill episode's steps that are random and not demonstrated (the plan " +
      'followed after a detour)',
    default: D.episodeNoise,
    min: 0,
    max: 0.95,
  },
  mix: {
    type: 'string',
    help: `demonstration kinds, kind=weight,… (default ${Object.entries(D.mix)
      .map(([k, v]) => `${k}=${v}`)
      .join(',')})`,
  },
  'type-weights': {
    type: 'string',
    help:
      'demonstrate train tasks by task type, type=weight,… (e.g. popqa=0.2,musique=4; a type left out weighs 1, ' +
      'a type at 0 is left out; default: train tasks 0..tasks−1)',
  },
  rename: {
    type: 'float',
    help:
      "share of demonstration episodes whose entities are renamed consistently (the env's demoRenamer: each " +
      'name swapped for another of its kind, see --rename-names), so cloning cannot answer from memorised facts; ' +
      'envs that ' +
      `have one: ${ENV_SPECS.filter((e) => e.demoRenamer)
        .map((e) => e.name)
        .join(', ')}`,
    default: 0,
    min: 0,
    max: 1,
  },
  'rename-names': {
    type: 'string',
    help:
      "where --rename's new names come from: seen (another seen entity's name of the same kind) or fresh (new " +
      "names from the env's word inventory, which cannot be completed from memory and must be copied)",
    default: RENAME_NAMES[0],
    choices: RENAME_NAMES,
  },
  history: { type: 'int', help: 'H: past turns in the prompt', default: D.historyTurns, ...range('historyTurns') },
  init: {
    type: 'string',
    help:
      'start from these weights (a .safetensors file of the same model size and vocabulary, or base: the ' +
      "env's base policy for the preset, from public/base/ or OPD_PUBLIC_DIR's base/) instead of a fresh seeded " +
      'init; nano weights (base included) with --model ' +
      "nano-deep are grown: the nano's 2 blocks, then 2 new blocks appended with zero output projections (the " +
      "nano's function at the start; the manifest records grownFrom)",
  },
  'measure-episodes': {
    type: 'int',
    help: 'episodes per split for the success measurements (0 = skip)',
    default: 200,
    min: 0,
    max: 100000,
  },
  out: {
    type: 'string',
    help:
      "weights path (the manifest goes next to it as .json); default the env's base-policy file for the preset, " +
      "public/base/<env>-<preset>.safetensors unless the env names another stem (OPD_PUBLIC_DIR's base/ when set)",
  },
  force: {
    type: 'boolean',
    help:
      "replace the env's base policy: without --out, an existing public/base/<env>-<preset> file (OPD_PUBLIC_DIR's " +
      'base/ when set) is kept',
  },
  json: { type: 'boolean', help: 'print one JSON object per line' },
  help: { type: 'boolean', help: 'show this help' },
} as const;

type Measured = NonNullable<BaseManifest['measured']>;
type Sens = NonNullable<BaseManifest['skillSensitivity']>;

/** Success per task type × split × hint mode as a text table (percent, episodes in brackets), columns aligned. */
function successTable(m: Measured, splits: readonly Split[]): string {
  const modes = Object.keys(m[splits[0]] ?? {});
  const types = [
    ...new Set(splits.flatMap((s) => modes.flatMap((md) => Object.keys(m[s]?.[md]?.byTaskType ?? {})))),
  ].sort();
  const cell = (s: Split, md: string, t: string) => {
    const x = m[s]?.[md]?.byTaskType[t];
    return x ? `${(100 * x.successRate).toFixed(1)}% (${x.episodes})` : '—';
  };
  const rows = [
    ['type', ...splits.flatMap((s) => modes.map((md) => `${s}/${md}`))],
    ...types.map((t) => [t, ...splits.flatMap((s) => modes.map((md) => cell(s, md, t)))]),
  ];
  return ['success by task type:', ...alignColumns(rows)].join('\n') + '\n';
}

/** Step-skill log-prob gain (nats) per task type, on and off the expert's path, as a text table, columns aligned. */
function sensitivityTable(on: Sens, off?: Sens): string {
  const types = [...new Set([...Object.keys(on.byTaskType ?? {}), ...Object.keys(off?.byTaskType ?? {})])].sort();
  const cell = (k: Sens | undefined, t: string) => {
    const x = k?.byTaskType?.[t];
    return x ? `${x.gainNats >= 0 ? '+' : ''}${x.gainNats.toFixed(3)} (${counted(x.steps, 'step')})` : '—';
  };
  const rows = [['type', 'on path', 'off path'], ...types.map((t) => [t, cell(on, t), cell(off, t)])];
  return ['step-skill log-prob gain by task type (nats):', ...alignColumns(rows)].join('\n') + '\n';
}

function fail(msg: string): never {
  process.stderr.write(`pretrain: ${msg}\n`);
  process.exit(USAGE_EXIT_CODE);
}

/** The parsed flags, the preset resolved (the env's default when not given). */
type PretrainArgs = Omit<ParsedArgs<typeof SPEC>, 'preset'> & { preset: string };

/** Where results go: the weights path and its manifest's, the demonstration mix and the task-type weights. */
interface Target {
  spec: EnvSpec;
  out: string;
  manifestPath: string;
  mix: PretrainConfig['mix'];
  typeWeights: PretrainConfig['typeWeights'];
}

/** Printing: `emit` a JSON line with --json, `say` readable text without. */
interface Output {
  emit: (o: object) => void;
  say: (s: string) => void;
}

/** Parse: the flags (a usage error exits 2 with the usage); null once --help is printed. */
function parsePretrainArgs(argv: string[]): PretrainArgs | null {
  let a;
  try {
    a = parseArgs(argv, SPEC);
  } catch (e) {
    if (e instanceof UsageError) fail(`${e.message}\n${usage('npm run pretrain --', SPEC)}`);
    throw e;
  }
  if (a.help) {
    process.stdout.write(usage('npm run pretrain --', SPEC) + '\n');
    return null;
  }
  try {
    return { ...a, preset: presetFor(getEnvSpec(a.env), a.preset) };
  } catch (e) {
    if (e instanceof UsageError) fail(e.message);
    throw e;
  }
}

/**
 * The default --out: the env's base-policy file for the preset under PUBLIC_DIR's `base/` (cli/base.ts: the
 * repository's public/, or OPD_PUBLIC_DIR's folder, which must then be a folder; exits 2 naming it otherwise), where
 * train and eval read it; shown relative to the working folder when under it.
 */
function defaultOut(spec: EnvSpec, preset: string): string {
  if (PUBLIC_DIR_VAR !== undefined) {
    const problem = folderProblem(PUBLIC_DIR);
    if (problem)
      fail(
        `${publicDirNamed(PUBLIC_DIR_VAR, PUBLIC_DIR)} ${problem}; without --out pretrain writes under its base/ ` +
          '(where train and eval read base policies): create that folder, unset OPD_PUBLIC_DIR to write the ' +
          'shipped ones, or pass --out FILE',
      );
  }
  return shownPath(path.join(PUBLIC_DIR, baseWeightsPath(spec, preset)));
}

/**
 * Resolve: the env and preset, --out (a .safetensors path in a folder that exists; without --out the env's base-policy
 * file under PUBLIC_DIR's base/, made when missing, kept when it exists unless --force), --mix and --type-weights;
 * exits 2 otherwise.
 */
function resolveTarget(a: PretrainArgs): Target {
  const spec = getEnvSpec(a.env);
  const out = a.out ?? defaultOut(spec, a.preset);
  if (!out.endsWith('.safetensors')) fail(`--out must end in .safetensors (got "${out}")`);
  const dir = path.dirname(path.resolve(out));
  if (a.out !== undefined && (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()))
    fail(`--out: folder "${dir}" does not exist; create it first`);
  const manifestPath = out.replace(/\.safetensors$/, '.json');
  let mix = D.mix;
  try {
    if (a.mix !== undefined) mix = parseMix(a.mix);
  } catch (e) {
    fail(`--${(e as Error).message}`);
  }
  let typeWeights: PretrainConfig['typeWeights'];
  try {
    if (a['type-weights'] !== undefined) {
      typeWeights = parseTypeWeights(a['type-weights'], spec.taskTypes(a.preset));
      checkTypeWeights(spec, a.preset, 'train', typeWeights);
    }
  } catch (e) {
    fail(`--${(e as Error).message}`);
  }
  if (a.rename > 0 && !spec.demoRenamer)
    fail(`--rename: ${spec.name} has no names to rename (only an env with a demoRenamer does); leave --rename at 0`);
  if (a['noise-actions'] === 'plausible' && !spec.plausibleMistake)
    fail(
      `--noise-actions plausible: ${spec.name} has no plausible mistakes (only an env with a plausibleMistake has); ` +
        'leave --noise-actions at random',
    );
  if (a['noise-actions'] !== NOISE_ACTIONS[0] && !(a.noise > 0 && mix.noisy > 0))
    fail(
      `--noise-actions ${a['noise-actions']} changes nothing without noisy steps: give --noise P > 0 and a noisy ` +
        'share in --mix, or leave --noise-actions at random',
    );
  if (a['rename-names'] !== RENAME_NAMES[0] && !(a.rename > 0))
    fail(`--rename-names ${a['rename-names']} renames nothing with --rename 0: give --rename P (0 < P ≤ 1) too`);
  if (a.out === undefined && !a.force && fs.existsSync(out))
    fail(
      PUBLIC_DIR_VAR === undefined
        ? `--out: ${out} is the shipped base policy for ${spec.name}/${a.preset} and is kept; pass --out FILE to ` +
            'write elsewhere, or --force to replace it (git checkout public/base/ restores the shipped one)'
        : `--out: ${out} is the base policy for ${spec.name}/${a.preset} under OPD_PUBLIC_DIR=${PUBLIC_DIR_VAR} ` +
            'and is kept; pass --out FILE to write elsewhere, or --force to replace it',
    );
  return { spec, out, manifestPath, mix, typeWeights };
}

/**
 * The command that reproduces these weights: --out and --json change where and how results are written, not the
 * weights.
 */
function pretrainCommand(argv: string[]): string {
  return (
    'npm run pretrain -- ' +
    shellLine(
      argv.filter((x, i) => x !== '--json' && x !== '--out' && argv[i - 1] !== '--out' && !x.startsWith('--out=')),
    )
  );
}

/** The pretraining config: the defaults with the flags' settings. */
function pretrainConfig(a: PretrainArgs, t: Pick<Target, 'mix' | 'typeWeights'>): PretrainConfig {
  return {
    ...D,
    mix: t.mix,
    ...(t.typeWeights === undefined ? {} : { typeWeights: t.typeWeights }),
    ...(a.rename > 0 ? { rename: a.rename } : {}),
    ...(a.rename > 0 && a['rename-names'] !== 'seen' ? { renameNames: a['rename-names'] as RenameNames } : {}),
    ...(a['noise-actions'] !== 'random' ? { noiseActions: a['noise-actions'] as NoiseActions } : {}),
    stepHintRate: a['step-hint-rate'],
    stepNoise: a['step-noise'],
    episodeNoise: a['episode-noise'],
    preset: a.preset,
    tasks: a.tasks,
    iters: a.iters,
    batch: a.batch,
    learningRate: a.lr,
    noise: a.noise,
    historyTurns: a.history,
    seed: a.seed,
    maxActionTokens: maxActionTokensFor(getEnvSpec(a.env)),
  };
}

/** Where --init's weights came from (the manifest's `pretrain` fields): the file, and its sha256. */
type InitFrom = { initFrom: string; initSha256: string };

/**
 * --init's bytes and the file they came from: `base`, the env's base policy for the preset (cli/base.ts
 * `loadBaseFiles`, checked against its manifest; PUBLIC_DIR's base/), else a weights file (its format checked).
 * Exits 2 naming the flag and the fix.
 */
async function initBytes(
  a: PretrainArgs,
  init: string,
  tok: ReturnType<typeof buildTokenizer>,
): Promise<{ file: string; bytes: Uint8Array }> {
  if (init === 'base') {
    try {
      const alt = 'give --init a weights file, or leave --init out for a fresh seeded init';
      const base = await loadBaseFiles(getEnvSpec(a.env), a.preset, tok, PUBLIC_DIR, alt);
      return { file: shownPath(base.path), bytes: base.bytes };
    } catch (e) {
      fail(`--init base: ${(e as Error).message}`);
    }
  }
  const missing = notAWeightsFile(init, '--init', INIT_FLAG);
  if (missing) fail(missing);
  const bytes = new Uint8Array(fs.readFileSync(init));
  const packed = runFileAsWeights(init, bytes, '--init') ?? notSafetensors(init, bytes, '--init', INIT_FLAG);
  if (packed) fail(packed);
  return { file: init, bytes };
}

/**
 * The policy to train: --init's weights (`base`: the env's base policy for the preset; checked: a weights file of
 * --model's size, or of the size --model grows from, grown: core/model/grow.ts, new blocks from the `init` stream of
 * --seed), else a fresh seeded init.
 */
async function startPolicy(
  a: PretrainArgs,
  tok: ReturnType<typeof buildTokenizer>,
): Promise<{ policy: PolicyHandle & { paramCount?: number }; init?: InitFrom; grownFrom?: GrownFrom }> {
  if (a.init === undefined) return { policy: createPolicy(a.model, tok, new Rng(a.seed).fork('init')) };
  const { file, bytes } = await initBytes(a, a.init, tok);
  let policy;
  try {
    policy = loadPolicy(bytes, tok);
  } catch (e) {
    fail(`--init: ${otherEnvWeights(bytes, a.env) ?? (e as Error).message}`);
  }
  const size = policy.size;
  const init = { initFrom: file, initSha256: await sha256Hex(bytes) };
  if (size === a.model) return { policy, init };
  disposePolicy(policy);
  if (!canGrow(size, a.model))
    fail(`--init: ${file} holds model size ${size}, not --model ${a.model}; set --model ${size}`);
  const grown = await growWeights(bytes, tok, a.model, new Rng(a.seed).fork('init'));
  return { policy: loadPolicy(grown.bytes, tok), init, grownFrom: grown.grownFrom };
}

/** Run: behaviour cloning, its events emitted and its demonstrations and progress said; the seconds it took. */
async function runPretrain(policy: PolicyHandle, spec: EnvSpec, cfg: PretrainConfig, o: Output): Promise<number> {
  let seconds = 0;
  for await (const ev of pretrain(policy, spec, cfg)) {
    o.emit(ev);
    if (ev.event === 'demos')
      o.say(
        `demonstrations: ${counted(ev.samples, 'sample')} (${ev.hinted} with a hint) from ` +
          `${JSON.stringify(ev.episodes)} episodes${ev.renamed ? `, ${ev.renamed} of them renamed` : ''}\n`,
      );
    if (ev.event === 'iter' && (ev.iter % 25 === 0 || ev.iter === ev.iters))
      o.say(
        `iter ${ev.iter}/${ev.iters}  loss ${ev.loss.toFixed(4)} nats/token  ${ev.tokensPerSecond.toFixed(0)} ` +
          `tok/s  ${(ev.elapsedMs / 1000).toFixed(0)} s\n`,
      );
    if (ev.event === 'done') seconds = ev.elapsedMs / 1000;
  }
  return seconds;
}

/**
 * Measure: success with hints none|episode|step|both per split, then the step skill's log-prob gain on and off the
 * expert's path, each said as it comes; the manifest gets them and is written again.
 */
async function measure(
  a: PretrainArgs,
  policy: PolicyHandle,
  spec: EnvSpec,
  cfg: PretrainConfig,
  manifest: BaseManifest,
  o: Output,
): Promise<void> {
  const splits: Split[] = ['test-seen', 'test-unseen'];
  const measured = (await measureHinted(policy, spec, {
    preset: a.preset,
    splits,
    modes: ['none', 'episode', 'step', 'both'],
    episodes: a['measure-episodes'],
    historyTurns: a.history,
    maxActionTokens: cfg.maxActionTokens,
    rng: new Rng(a.seed).fork('measure'),
  })) as Measured;
  manifest.measured = measured;
  manifest.skillSensitivity = await skillSensitivity(policy, spec, {
    preset: a.preset,
    split: 'test-seen',
    episodes: Math.min(100, a['measure-episodes']),
    historyTurns: a.history,
    maxActionTokens: cfg.maxActionTokens,
  });
  for (const s of splits)
    for (const [mode, r] of Object.entries(measured[s] ?? {}))
      o.say(
        `${s} hints ${mode.padEnd(7)} ${(100 * r.successRate).toFixed(1)}% of ${r.episodes}  (${Object.entries(
          r.byTaskType,
        )
          .map(([t, x]) => `${t} ${(100 * x.successRate).toFixed(1)}%`)
          .join(', ')})\n`,
      );
  o.say(successTable(measured, splits));
  manifest.skillSensitivityOffPath = await skillSensitivity(policy, spec, {
    preset: a.preset,
    split: 'test-seen',
    episodes: Math.min(100, a['measure-episodes']),
    historyTurns: a.history,
    maxActionTokens: cfg.maxActionTokens,
    noise: 0.5,
    rng: new Rng(a.seed).fork('off-path'),
  });
  printSensitivity(manifest.skillSensitivity, manifest.skillSensitivityOffPath, o);
}

/** Print: the step skill's log-prob gain off and on the expert's path, then per task type. */
function printSensitivity(k: Sens, off: Sens, o: Output): void {
  o.say(
    `off the expert's path (50% random moves), ${counted(off.steps, 'step')}: log-prob ${off.logpNoSkill.toFixed(3)} ` +
      `→ ${off.logpWithSkill.toFixed(3)} nats with the step skill (+${off.gainNats.toFixed(3)})\n`,
  );
  o.say(
    `skill sensitivity on ${k.steps} held-out expert steps: log-prob ${k.logpNoSkill.toFixed(3)} → ` +
      `${k.logpWithSkill.toFixed(3)} nats with the step skill (+${k.gainNats.toFixed(3)})\n`,
  );
  o.say(sensitivityTable(k, off));
}

/** The manifest of the saved weights (without measurements). */
function manifestOf(
  a: PretrainArgs,
  t: Target,
  run: { bytes: Uint8Array; sha: string; tok: ReturnType<typeof buildTokenizer> },
  how: { command: string; backend: string; cfg: PretrainConfig; init?: object; grownFrom?: GrownFrom; seconds: number },
): BaseManifest {
  const { spec } = t;
  return {
    format: 1,
    env: spec.name,
    preset: a.preset,
    model: a.model,
    ...(how.grownFrom ? { grownFrom: how.grownFrom } : {}),
    file: path.basename(t.out),
    sha256: run.sha,
    bytes: run.bytes.length,
    vocabHash: vocabHash(run.tok),
    envVersions: { [spec.name]: spec.version },
    command: how.command,
    seed: a.seed,
    backend: how.backend,
    pretrain: { ...how.cfg, ...how.init },
    trainSeconds: Math.round(how.seconds),
    machine: `${os.cpus().length} CPU cores (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}`,
  };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const a = parsePretrainArgs(argv);
  if (!a) return;
  const t = resolveTarget(a);
  const { spec, out, manifestPath } = t;
  const backend = await setupBackend(a.backend);
  const command = pretrainCommand(argv);
  const cfg = pretrainConfig(a, t);
  const tok = buildTokenizer(spec);
  const { policy, init, grownFrom } = await startPolicy(a, tok);
  const o: Output = {
    emit: (x) => void (a.json && process.stdout.write(JSON.stringify(x) + '\n')),
    say: (x) => void (!a.json && process.stdout.write(x)),
  };
  const grown = grownFrom ? `, grown from ${grownFrom.model}: its blocks, then identity blocks` : '';
  const from = init
    ? `from ${init.initFrom}, sha256 ${init.initSha256.slice(0, 8)}…${grown}`
    : `${policy.paramCount} params`;
  o.say(`pretraining ${a.model} on ${a.env}/${a.preset} (${from}), backend ${backend}, seed ${a.seed}\n`);
  const seconds = await runPretrain(policy, spec, cfg, o);
  const bytes = await savePolicy(policy, a.model, { [spec.name]: spec.version }, { seed: String(a.seed), command });
  const sha = await sha256Hex(bytes);
  const manifest = manifestOf(a, t, { bytes, sha, tok }, { command, backend, cfg, init, grownFrom, seconds });
  // The weights first, with a manifest without measurements: a measurement that fails (or is stopped) loses no
  // training. The default --out's base/ folder is made when an OPD_PUBLIC_DIR folder lacks it.
  fs.mkdirSync(path.dirname(out), { recursive: true });
  writeAtomic(out, bytes);
  writeAtomic(manifestPath, JSON.stringify(manifest, null, 2) + '\n');
  if (a['measure-episodes'] > 0) {
    o.say(`wrote ${out} (${bytes.length} bytes); measuring (the manifest gets the measurements when they are done)\n`);
    try {
      await measure(a, policy, spec, cfg, manifest, o);
      writeAtomic(manifestPath, JSON.stringify(manifest, null, 2) + '\n');
    } catch (e) {
      throw new Error(
        `measuring failed: ${e instanceof Error ? e.message : String(e)} — the weights are saved (${out}, ` +
          `sha256 ${sha.slice(0, 12)}…) with a manifest without measurements`,
        { cause: e },
      );
    }
  }
  printSaved(o, { out, manifestPath, sha, bytes: bytes.length }, manifest);
  disposePolicy(policy);
}

/** Print: where the weights and the manifest went, their sha256 (and, with --json, the measurements). */
function printSaved(
  o: Output,
  w: { out: string; manifestPath: string; sha: string; bytes: number },
  manifest: BaseManifest,
): void {
  o.emit({
    event: 'saved',
    weights: w.out,
    manifest: w.manifestPath,
    sha256: w.sha,
    bytes: w.bytes,
    measured: manifest.measured,
    skillSensitivity: manifest.skillSensitivity,
    skillSensitivityOffPath: manifest.skillSensitivityOffPath,
  });
  o.say(`wrote ${w.out} (${w.bytes} bytes) and ${w.manifestPath}\nsha256 ${w.sha}\n`);
}

main().catch((e) => {
  process.stderr.write(`pretrain: ${e instanceof Error ? (process.env.OPD_DEBUG ? e.stack : e.message) : String(e)}\n`);
  process.exit(1);
});
