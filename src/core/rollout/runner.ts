/**
 * Batched rollouts (docs/architecture.md, one training step): all episodes step in lockstep; at each env step every
 * unfinished episode's prompt is built and one action per episode is sampled in one KV-cached batch. Draws come from
 * the explicit `rng` in episode order, so a rollout is reproducible given the policy's logits.
 */
import type { Env, EnvSpec, TaskRef } from '../envs/types';
import type { Rng } from '../rng';
import type { Tokenizer } from '../tokenizer/tokenizer';
import type { PolicyHandle } from '../model/policy';
import { sampleResponses, type SampledResponse } from '../model/sample';
import { buildPrompt, type Turn } from './prompt';
import { admissibleTrie } from './trie';
import type { StepRecord, Trajectory } from './types';
import { openTrajectory } from './scripted';
import { checkCancelled, type CancelSignal } from '../cancel';
import { now } from '../clock';

/**
 * Decoding modes (RunConfig.decoding): `admissible` masks sampling token by token to prefixes of the admissible
 * actions; `free` samples any token (an inadmissible action gets the env's invalid-action answer).
 */
export const DECODINGS = ['admissible', 'free'] as const;

/** Options of `runEpisodes`. */
export interface RolloutOptions {
  decoding: (typeof DECODINGS)[number];
  temperature: number;
  historyTurns: number;
  maxActionTokens: number;
  rng: Rng;
  /** Max episodes per sampling batch (memory bound). Default 128. */
  maxBatch?: number;
  /** Optional per-episode skill injection (OPID/Skill-GRPO): episode-level text per episode index. */
  episodeSkill?: (episode: number, taskType: string) => string | undefined;
  /**
   * Optional per-step skill injection (hinted evaluation; Skill-GRPO): called before each
   * step with the episode index and its env (state after the previous action); returns the step skill or nothing.
   */
  stepSkill?: (episode: number, env: Env) => string | undefined;
  /**
   * Checked before every lockstep turn (the safe points of a rollout): once set, `runEpisodes` throws `RunCancelled`
   * (core/cancel.ts) and its episodes are dropped. Random draws happen only inside a turn, so a cut rollout leaves
   * nothing half-drawn that a redo with a fresh fork of the same stream would not draw again.
   */
  cancel?: CancelSignal;
  /**
   * Called after every lockstep turn with the episodes finished so far, the episode count, and the fraction of the
   * work done (each unfinished episode counts turns taken / its env's step limit, a finished one 1; see
   * core/cancel.ts `PhaseProgress.fraction`).
   */
  onTurn?: (episodesDone: number, episodes: number, fraction: number) => void;
}

/** Result of a batch of episodes. */
export interface RolloutResult {
  trajectories: Trajectory[];
  /** Tokens that went through the model (prompt prefill + decoded tokens). */
  tokens: number;
  /** Wall time in the model's sampling (prefill + KV-cached decoding + the CPU draw), ms. */
  sampleMs: number;
  /** Wall time in the environments and prompt building (everything else of the rollout), ms. */
  envMs: number;
}

/** Run one episode per task ref with the policy. @throws Error from the env on a bad ref. */
export async function runEpisodes(
  policy: PolicyHandle,
  spec: EnvSpec,
  preset: string,
  refs: readonly TaskRef[],
  o: RolloutOptions,
): Promise<RolloutResult> {
  const { tok, cfg } = policy;
  const eos = tok.special('<eos>');
  const maxPrompt = cfg.maxSeq - o.maxActionTokens;
  const ep = resetEpisodes(spec, preset, refs);
  let tokens = 0,
    sampleMs = 0;
  const t0 = now();
  const maxBatch = o.maxBatch ?? 128;
  while (ep.done.some((d) => !d)) {
    const active = ep.done.flatMap((d, i) => (d ? [] : [i]));
    for (let c = 0; c < active.length; c += maxBatch) {
      await checkCancelled(o.cancel, 'rollout turn');
      const rows = active.slice(c, c + maxBatch);
      const adm = rows.map((i) => ep.envs[i].admissibleActions());
      const prompts = turnPrompts(tok, maxPrompt, ep, rows, adm, o);
      const tries = o.decoding === 'admissible' ? adm.map((a) => admissibleTrie(tok, a)) : null;
      const ts = now();
      const res = await sampleResponses(policy.params, cfg, prompts, {
        temperature: o.temperature,
        maxTokens: o.maxActionTokens,
        eos,
        freeRow: policy.freeRow,
        rng: o.rng,
        allowed: (row, prefix) => (tries ? tries[row].allowed(prefix) : null),
      });
      sampleMs += now() - ts;
      tokens += takeActions(tok, eos, ep, rows, adm, prompts, res);
    }
    if (o.onTurn) reportTurn(ep, o);
  }
  for (const t of ep.trajs) t.success = t.success || t.reward >= 1;
  return { trajectories: ep.trajs, tokens, sampleMs, envMs: now() - t0 - sampleMs };
}

/** The lockstep episodes of one `runEpisodes` call, by episode index. */
interface Episodes {
  envs: Env[];
  trajs: Trajectory[];
  /** The observation each episode's next prompt shows. */
  obs: string[];
  /** The turns taken so far (the prompt shows the last `historyTurns`). */
  hist: Turn[][];
  done: boolean[];
}

/** One env per task ref, reset to its task, with its empty trajectory. @throws Error from the env on a bad ref. */
function resetEpisodes(spec: EnvSpec, preset: string, refs: readonly TaskRef[]): Episodes {
  const envs: Env[] = refs.map(() => spec.create(preset));
  const trajs: Trajectory[] = refs.map((ref, i) => {
    return openTrajectory(ref, envs[i].reset(ref));
  });
  const obs = trajs.map((t) => t.initialObservation);
  const hist: Turn[][] = refs.map(() => []);
  const done = refs.map(() => false);
  return { envs, trajs, obs, hist, done };
}

/**
 * The prompt (token ids, at most `maxPrompt`) of each episode of `rows`, with `adm[k]` the admissible actions of
 * episode rows[k] and the skills `o` injects (asked row by row, episode skill then step skill).
 */
function turnPrompts(
  tok: Tokenizer,
  maxPrompt: number,
  ep: Episodes,
  rows: readonly number[],
  adm: readonly string[][],
  o: RolloutOptions,
): number[][] {
  return rows.map((i, k) =>
    buildPrompt(
      tok,
      {
        task: ep.trajs[i].task,
        history: ep.hist[i],
        observation: ep.obs[i],
        admissible: adm[k],
        historyTurns: o.historyTurns,
        episodeSkill: o.episodeSkill?.(i, ep.trajs[i].taskType),
        stepSkill: o.stepSkill?.(i, ep.envs[i]),
      },
      maxPrompt,
    ),
  );
}

/**
 * Steps each episode of `rows` with the action its sampled response `res[k]` spells, recording the step in its
 * trajectory and history. Returns the tokens that went through the model for these rows (prompt + response).
 */
function takeActions(
  tok: Tokenizer,
  eos: number,
  ep: Episodes,
  rows: readonly number[],
  adm: readonly string[][],
  prompts: readonly number[][],
  res: readonly SampledResponse[],
): number {
  let tokens = 0;
  rows.forEach((i, k) => {
    const r = res[k];
    tokens += prompts[k].length + r.tokens.length;
    const body = r.tokens[r.tokens.length - 1] === eos ? r.tokens.slice(0, -1) : r.tokens;
    // A response cut before <eos> is not a complete action: send it as is (it will be inadmissible).
    const action = tok.decode(body, { skipSpecial: true }).replace(/^ /, '');
    const st = ep.envs[i].step(action);
    const rec: StepRecord = {
      observation: ep.obs[i],
      admissible: adm[k],
      prompt: prompts[k],
      response: r.tokens,
      allowed: r.allowed,
      sampleLogp: r.sampleLogp,
      sampleEntropy: r.sampleEntropy,
      action,
      valid: st.valid,
      reward: st.reward,
    };
    const t = ep.trajs[i];
    t.steps.push(rec);
    t.reward += st.reward;
    if (!st.valid) t.invalidCount++;
    if (st.success) t.success = true;
    if (st.info) t.metrics = { ...st.info };
    ep.hist[i].push({ action, observation: st.observation });
    ep.obs[i] = st.observation;
    t.finalObservation = st.observation;
    if (st.done) ep.done[i] = true;
  });
  return tokens;
}

/**
 * Reports a lockstep turn's progress to `o.onTurn`: episodes finished, the episode count and the fraction of the work
 * done.
 */
function reportTurn(ep: Episodes, o: RolloutOptions): void {
  const { envs, trajs, done } = ep;
  let fin = 0,
    work = 0;
  envs.forEach((e, i) => {
    if (done[i]) fin++;
    work += done[i] ? 1 : Math.min(1, trajs[i].steps.length / Math.max(1, e.maxSteps));
  });
  o.onTurn?.(fin, envs.length, envs.length ? work / envs.length : 1);
}
