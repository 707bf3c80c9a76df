/**
 * `npm run train -- --env household [--preset easy] --algo grpo --model nano --steps N --tasks B --group G
 *  --seed S --backend cpu|wasm [--json]` (issue #2). With --json: one JSON object per line (step and eval events;
 * see src/core/train/events.ts). Without: a progress line and a readable summary. Bad input: a message naming
 * the flag and the accepted values, exit code 2.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, usage, UsageError, USAGE_EXIT_CODE } from './args';
import { buildTokenizer, disposePolicy, loadPolicy, savePolicy } from '../src/core/model/policy';
import { BestEval } from '../src/core/train/best';
import { getEnvSpec } from '../src/core/envs/registry';
import type { PolicyHandle } from '../src/core/model/policy';
import { setupBackend, NODE_BACKENDS } from './backend';
import { loadBaseFiles } from './base';
import { exitOnClosedStdout, writeAtomic } from './files';
import { ConfigError, DEFAULT_CONFIG, describeField, parseRunConfig, type RunConfig } from '../src/core/run/config';
import { train } from '../src/core/train/trainer';
import type { EvalEvent, StepEvent } from '../src/core/train/events';

exitOnClosedStdout();

const SPEC = {
  env: { type: 'string', help: 'environment', default: 'household' },
  preset: { type: 'string', help: 'environment preset', default: 'easy' },
  algo: { type: 'string', help: 'algorithm', default: 'grpo' },
  model: { type: 'string', help: 'model size', default: 'nano' },
  steps: { type: 'int', help: 'training steps' },
  tasks: { type: 'int', help: 'B: tasks per step' },
  group: { type: 'int', help: 'G: rollouts per task' },
  seed: { type: 'int', help: 'seed' },
  backend: { type: 'string', help: 'tfjs backend', default: 'wasm', choices: NODE_BACKENDS },
  decoding: { type: 'string', help: 'decoding mode (admissible|free)' },
  lr: { type: 'float', help: 'Adam learning rate' },
  'lr-schedule': { type: 'string', help: 'learning-rate schedule (constant|linear|cosine)' },
  'min-lr-ratio': { type: 'float', help: 'final learning rate / --lr for linear and cosine' },
  'kl-beta': { type: 'float', help: 'β, KL weight' },
  'clip-high': { type: 'float', help: 'DAPO clip-higher ε_high (0 = same as ε)' },
  'entropy-coef': { type: 'float', help: 'entropy bonus coefficient' },
  'mini-batches': { type: 'int', help: 'mini-batches per step' },
  'ppo-epochs': { type: 'int', help: 'passes over each step\'s samples' },
  'loss-agg': { type: 'string', help: 'loss aggregation (token-mean|seq-mean-token-mean)' },
  history: { type: 'int', help: 'H: past turns in the prompt' },
  'max-step-kl': { type: 'float', help: 'undo a step\'s update (weights and Adam state) when its approx KL(old‖new) on the step\'s samples exceeds this (TRPO-style; 0 = off; --kl-backtracks shrinks it first)' },
  'kl-backtracks': { type: 'int', help: 'with --max-step-kl: first shrink a too-large update by half up to this many times (TRPO line search; Adam state kept), undo it only if none fits (0 = undo at once)' },
  'adam-beta1': { type: 'float', help: 'Adam β1 (default 0.9)' },
  'adam-beta2': { type: 'float', help: 'Adam β2 (default 0.999; 0.95 adapts faster to gradient spikes)' },
  'adam-eps': { type: 'float', help: 'Adam ε (default 1e-8)' },
  'target-kl': { type: 'float', help: 'stop a step\'s update once a mini-batch\'s approx KL(old‖new) > 1.5× this (SB3 target_kl; 0 = off; the first mini-batch always applies, so it needs --mini-batches or --ppo-epochs ≥ 2)' },
  'eval-every': { type: 'int', help: 'evaluate every k steps (0 = never)' },
  'eval-episodes': { type: 'int', help: 'episodes per split at each evaluation' },
  'adv-norm': { type: 'string', help: 'advantage normalisation (mean-std|mean-only)' },
  'step-adv-weight': { type: 'float', help: 'ω of the GiGPO step-level advantage (same-state steps compared; 0 = off)' },
  'step-adv-gamma': { type: 'float', help: 'γ of the step-level returns (used only when --step-adv-weight > 0)' },
  ablation: { type: 'string', help: 'OPID ablation (none|no-episode|no-step|additive)' },
  'lambda-skill': { type: 'float', help: 'λ_skill, weight of the skill advantage' },
  'max-step-skills': { type: 'int', help: 'K, max step skills per trajectory' },
  'skill-clip': { type: 'float', help: 'clip A_skill to [−c, c] (0 = no clip)' },
  'skill-zscore': { type: 'boolean', help: 'z-score A_skill over the batch before λ' },
  'failed-only': { type: 'boolean', help: 'OPID: analyse only failed trajectories' },
  analyzer: { type: 'string', help: 'analyzer for opid/skill-grpo (heuristic|http)' },
  'analyzer-url': { type: 'string', help: 'http analyzer base URL (OpenAI-compatible); the key comes only from OPD_ANALYZER_API_KEY' },
  'analyzer-model': { type: 'string', help: 'http analyzer model name' },
  'analyzer-timeout-ms': { type: 'int', help: 'http analyzer request timeout (ms)' },
  save: { type: 'string', help: 'write the final weights (safetensors) to this path' },
  'save-best': { type: 'string', help: 'write the weights of the best evaluation so far (mean success over test-seen and test-unseen; the step-0 evaluation counts; ties keep the earlier) to this path, at each new best; needs --eval-every > 0' },
  init: { type: 'string', help: 'starting weights: base (the shipped base policy, default) | scratch (fresh init) | PATH (.safetensors)' },
  json: { type: 'boolean', help: 'print one JSON object per line' },
  help: { type: 'boolean', help: 'show this help' },
} as const;

/** RunConfig field for each flag that maps to one (for error messages and building the config). */
const FIELD: Record<string, keyof RunConfig> = {
  env: 'env', preset: 'preset', algo: 'algo', model: 'model', steps: 'steps', tasks: 'tasksPerStep', group: 'groupSize', seed: 'seed',
  decoding: 'decoding', lr: 'learningRate', 'lr-schedule': 'lrSchedule', 'min-lr-ratio': 'minLrRatio', 'kl-beta': 'klBeta', 'clip-high': 'clipEpsHigh', 'entropy-coef': 'entropyCoef', 'mini-batches': 'miniBatches', 'ppo-epochs': 'ppoEpochs', 'loss-agg': 'lossAgg', history: 'historyTurns', 'target-kl': 'targetKl', 'adam-beta1': 'adamBeta1', 'adam-beta2': 'adamBeta2', 'adam-eps': 'adamEps', 'max-step-kl': 'maxStepKl', 'kl-backtracks': 'klBacktracks',
  'eval-every': 'evalEvery', 'eval-episodes': 'evalEpisodes', 'adv-norm': 'advNorm', 'step-adv-weight': 'stepAdvWeight', 'step-adv-gamma': 'stepAdvGamma',
  ablation: 'ablation', 'lambda-skill': 'lambdaSkill', 'max-step-skills': 'maxStepSkills', 'skill-clip': 'skillClip', 'skill-zscore': 'skillZscore', 'failed-only': 'failedOnly', analyzer: 'analyzer',
  'analyzer-url': 'analyzerUrl', 'analyzer-model': 'analyzerModel', 'analyzer-timeout-ms': 'analyzerTimeoutMs',
};

/** Checks before training that `--save` names a file we can create: its folder exists and is writable. */
function checkSavePath(p: string, flag: string): void {
  if (p.trim() === '') fail(`${flag} needs a file path, e.g. ${flag} runs/policy.safetensors`);
  const dir = path.dirname(path.resolve(p));
  if ((fs.existsSync(p) && fs.statSync(p).isDirectory()) || /[/\\]$/.test(p)) fail(`${flag}: "${p}" is a folder; give a file path inside it, e.g. ${path.join(p, 'policy.safetensors')}`);
  if (!fs.existsSync(dir)) fail(`${flag}: folder "${dir}" does not exist; create it first`);
  if (!fs.statSync(dir).isDirectory()) fail(`${flag}: "${dir}" is a file, not a folder; give a path inside a folder`);
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    fail(`${flag}: folder "${dir}" is not writable`);
  }
}

function fail(msg: string): never {
  process.stderr.write(`train: ${msg}\n`);
  process.exit(USAGE_EXIT_CODE);
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs(process.argv.slice(2), SPEC);
  } catch (e) {
    if (e instanceof UsageError) {
      // Name the schema's accepted range too, where the flag maps to a run-config field (e.g. "a number in [0, 10]").
      const field = e.flag !== undefined ? FIELD[e.flag] : undefined;
      fail(`${e.message}${field ? ` (accepted: ${describeField(field)})` : ''}\n${usage('npm run train --', SPEC)}`);
    }
    throw e;
  }
  if (args.help) {
    const w = Math.max(...Object.keys(FIELD).map((f) => f.length));
    const ranges = Object.entries(FIELD).map(([flag, field]) => `  --${flag.padEnd(w)} ${describeField(field)}; default ${DEFAULT_CONFIG[field]}`);
    process.stdout.write(usage('npm run train --', SPEC) + '\naccepted values (from the run config schema):\n' + ranges.join('\n') + '\n');
    return;
  }
  const partial: Record<string, unknown> = {};
  for (const [flag, field] of Object.entries(FIELD)) {
    const v = (args as Record<string, unknown>)[flag];
    if (v !== undefined) partial[field] = v;
  }
  let config: RunConfig;
  try {
    config = parseRunConfig({ ...partial, backend: args.backend });
  } catch (e) {
    if (e instanceof ConfigError) {
      const flagOf = (field: string) => Object.entries(FIELD).find(([, f]) => f === field)?.[0] ?? field;
      // Config names in a message become the flags that set them (as the page shows its labels).
      const flagged = (m: string) => m.replace(/\b[a-z]+[A-Z][A-Za-z]*\b/g, (w) => (flagOf(w) !== w ? `--${flagOf(w)}` : w));
      fail(e.issues.map((i) => `--${flagOf(i.field)}: ${flagged(i.message)}`).join('\n'));
    }
    throw e;
  }
  if (args.save !== undefined) checkSavePath(args.save, '--save');
  if (args['save-best'] !== undefined) {
    checkSavePath(args['save-best'], '--save-best');
    if ((config.evalEvery ?? 0) === 0) fail('--save-best needs evaluations: set --eval-every to a step count > 0');
    if (args.save !== undefined && path.resolve(args.save) === path.resolve(args['save-best'])) fail('--save and --save-best name the same file; give them different paths');
  }
  let initWeights: Uint8Array | undefined;
  if (args.init === 'base' || args.init === 'scratch') {
    config = { ...config, init: args.init };
  } else if (args.init !== undefined) {
    if (!fs.existsSync(args.init) || !fs.statSync(args.init).isFile()) fail(`--init: no weights file at "${args.init}" (a .safetensors file written by --save)`);
    initWeights = new Uint8Array(fs.readFileSync(args.init));
  }
  const backend = await setupBackend(args.backend);
  if (initWeights) {
    // Validate before training so a bad file is a usage error (exit 2) naming what is wrong.
    try {
      const p = loadPolicy(initWeights, buildTokenizer(getEnvSpec(config.env)));
      disposePolicy(p);
      if (p.size !== config.model) fail(`--init ${args.init} holds a ${p.size} model; pass --model ${p.size}`);
    } catch (e) {
      fail(`--init ${args.init}: ${(e as Error).message}`);
    }
  }
  if (!initWeights && config.init === 'base') {
    const spec = getEnvSpec(config.env);
    try {
      const base = await loadBaseFiles(spec, config.preset, buildTokenizer(spec));
      if (base.manifest.model !== config.model) fail(`--init base: the shipped base policy for ${config.env}/${config.preset} is a ${base.manifest.model} model; pass --model ${base.manifest.model}, or --init scratch`);
      initWeights = base.bytes;
    } catch (e) {
      fail(`--init base: ${(e as Error).message}`);
    }
  }
  const out = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');
  let policy: PolicyHandle | undefined;
  const analyzerApiKey = process.env.OPD_ANALYZER_API_KEY || undefined;
  const best = new BestEval();
  // historyTurns lets `eval --policy PATH` prompt the policy as it was trained.
  const meta = { seed: String(config.seed), command: 'npm run train -- ' + process.argv.slice(2).join(' '), historyTurns: String(config.historyTurns) };
  const envVersions = { [config.env]: getEnvSpec(config.env).version };
  for await (const ev of train(config, { backend, initWeights, analyzerApiKey, onPolicy: (p) => (policy = p) })) {
    if (ev.event === 'done' && args.save && policy) writeAtomic(args.save, await savePolicy(policy, config.model, envVersions, meta));
    if (args.json) {
      if (ev.event === 'step' || ev.event === 'eval' || ev.event === 'start' || ev.event === 'done') out(ev);
    } else if (ev.event === 'start') process.stdout.write(`training ${config.algo} on ${config.env}/${config.preset}, model ${config.model} (${ev.params} params, vocab ${ev.vocabSize}), backend ${backend}, seed ${config.seed}\n`);
    else if (ev.event === 'step') {
      process.stdout.write(progress(ev, config.steps, config.targetKl > 0 ? config.miniBatches * config.ppoEpochs : 0) + '\n');
    } else if (ev.event === 'eval') process.stdout.write(evalLine(ev) + '\n');
    else if (ev.event === 'done') process.stdout.write(`done: ${ev.steps} steps in ${(ev.elapsedMs / 1000).toFixed(1)} s${config.maxStepKl > 0 ? `, ${ev.undoneSteps} update${ev.undoneSteps === 1 ? '' : 's'} undone by --max-step-kl${config.klBacktracks > 0 ? `, ${ev.shrunkSteps} shrunk by the line search` : ''}` : ''}\n`);
    if (ev.event === 'eval' && args['save-best'] && policy && best.offer(ev)) {
      const splits = JSON.stringify(best.splits);
      writeAtomic(args['save-best'], await savePolicy(policy, config.model, envVersions, { ...meta, bestStep: String(ev.step), bestScore: String(best.score), bestSplits: splits }));
      if (args.json) out({ event: 'best', step: ev.step, score: best.score, splits: best.splits, path: args['save-best'] });
      else process.stdout.write(`best so far @ step ${ev.step}: mean test success ${(100 * best.score).toFixed(1)}%, saved to ${args['save-best']}\n`);
    }
  }
}

/** One readable progress line; `plannedUpdates` > 0 (target KL on) adds the updates applied of those planned. */
function progress(e: StepEvent, total: number, plannedUpdates: number): string {
  const w = 20, filled = Math.round((e.step / total) * w);
  const eta = ((total - e.step) * e.elapsedMs) / e.step / 1000;
  return `[${'#'.repeat(filled)}${'.'.repeat(w - filled)}] step ${e.step}/${total}  success ${(100 * e.successRate).toFixed(0)}%  reward ${e.rewardMean.toFixed(2)}  loss ${e.policyLoss.toFixed(4)}  KL ${e.kl.toFixed(4)} nats  clip ${(100 * e.clipFraction).toFixed(1)}%  entropy ${e.entropy.toFixed(3)} nats  lr ${e.learningRate.toExponential(2)}${e.stepKl !== null ? `  step KL ${e.stepKl.toFixed(4)}${e.rolledBack ? ' UNDONE' : e.stepScale < 1 ? ` SHRUNK ×${e.stepScale} → ${e.keptStepKl!.toFixed(4)}` : ''}` : ''}${plannedUpdates ? `  updates ${e.updates}/${plannedUpdates}` : ''}  ${e.tokensPerSecond.toFixed(0)} tok/s  ${(e.stepMs / 1000).toFixed(1)} s/step  ETA ${eta.toFixed(0)} s` +
    (e.analyzerCalls || e.analyzerFailures ? `  | teacher share ${(100 * e.teacherShare).toFixed(1)}%  skill-active ${(100 * e.skillActiveTokenRatio).toFixed(0)}%  sign agreement ${(100 * e.skillSignAgreement).toFixed(0)}%  analyzer ${e.analyzerCalls} calls, ${e.analyzerFailures} failed${Object.keys(e.analyzerFailureReasons).length ? ' (' + Object.entries(e.analyzerFailureReasons).map(([k, v]) => `${k} ×${v}`).join(', ') + ')' : ''}` : '');
}

function evalLine(e: EvalEvent): string {
  return `eval @ step ${e.step}: ` + Object.entries(e.splits).map(([s, v]) => `${s} ${(100 * v!.successRate).toFixed(1)}% (${v!.episodes} episodes; ` + Object.entries(v!.byTaskType).map(([t, x]) => `${t} ${(100 * x.successRate).toFixed(0)}%`).join(', ') + ')').join('  ');
}

main().catch((e) => {
  process.stderr.write(`train: ${e instanceof Error ? (process.env.OPD_DEBUG ? e.stack : e.message) : String(e)}\n`);
  process.exit(1);
});
