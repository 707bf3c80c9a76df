/**
 * "Act with the current policy" (worker layer; the page's rollout explorer): the run's current weights play the task
 * of a stored trajectory (the same train-split task, the same episode skill in the prompt if its rollout had one)
 * from its start, one turn per `step`. At each turn the prompt is built as a rollout builds it (rollout/prompt.ts,
 * the run's history window H), every admissible action is scored as a whole response (core/rollout/act-topk.ts: the
 * full-sequence log-prob at the run's temperature and decoding; normalised over the list under admissible decoding)
 * and the action is taken either
 * - `sampled`: drawn by the rollout's own sampler (model/sample.ts: token by token from the same masked distribution,
 *   with a seeded Rng, `act/<step>/<group>/<trajectory>` forked from the run's seed, so the same weights replay the
 *   same draws), or
 * - `greedy`: the most probable admissible action (the first row of the list); an open form there (`search[`) is
 *   filled with the most probable tokens (its words, `]`), since the bare form is no action.
 * The weights are read between updates only (TrainingSession.withPolicy: training must be paused), at every step,
 * so a Step after more training acts with the newer weights; each turn records the weights' step.
 */
import { Rng } from '../core/rng';
import { getEnvSpec } from '../core/envs/registry';
import { isOpenAction, normalizeAction, type Env } from '../core/envs/types';
import type { PolicyHandle } from '../core/model/policy';
import { sampleResponses } from '../core/model/sample';
import { buildPrompt, type Turn } from '../core/rollout/prompt';
import { admissibleTrie } from '../core/rollout/trie';
import { rankActions, scoreActions, type ActionProb } from '../core/rollout/act-topk';
import { scoreSamples } from '../core/model/scoring';
import type { RunConfig } from '../core/run/config';
import type { GroupDetail } from '../core/train/step-detail';
import type { LivePolicy } from './session';
import { promptView } from './explorer-view';
import type { ActChoice, ActEpisodeView, ActTurn } from './api';
import { algorithmTraits } from '../core/algorithm-catalog';

/** Rows of the next-action list shown per turn (top-k). */
export const ACT_TOP_K = 5;

/** One episode of the act panel: its environment, history and generator. */
export class ActEpisode {
  private readonly env: Env;
  private readonly hist: Turn[] = [];
  private obs: string;
  private readonly rng: Rng;
  readonly view: ActEpisodeView;

  /**
   * @param config the run's config (environment, preset, decoding, temperature, H, maxActionTokens, seed).
   * @param g the stored group; `trajectory` indexes its trajectories.
   * @throws Error naming the trajectory when the group has no such trajectory.
   */
  constructor(
    private readonly config: RunConfig,
    g: GroupDetail,
    trajectory: number,
    tokenizer: LivePolicy['policy']['tok'],
  ) {
    const t = g.trajectories[trajectory];
    if (!Number.isInteger(trajectory) || !t)
      throw new Error(
        `act: group ${g.group} of step ${g.step} has no trajectory ${trajectory} (it has ${g.trajectories.length})`,
      );
    if (!Number.isInteger(g.taskIndex)) {
      throw new Error(
        `act: group ${g.group} of step ${g.step} was read back from a stored run that did not keep its ` +
          `train task index; pick a step trained in this tab`,
      );
    }
    this.env = getEnvSpec(config.env).create(config.preset);
    const r = this.env.reset({ split: 'train', index: g.taskIndex });
    this.obs = r.observation;
    const first = t.turns[0];
    // A stored group keeps no prompt: an algorithm that puts skills in the prompt (Skill-GRPO) held the trajectory's
    // episode skill there (its algorithm view is that skill); no other algorithm puts one in rollout prompts.
    const episodeSkill = first?.prompt
      ? promptView(first.prompt, tokenizer).episodeSkill
      : g.stored && algorithmTraits(config.algo).skills === 'prompt'
        ? t.episodeSkill
        : undefined;
    this.rng = new Rng(config.seed).fork(`act/${g.step}/${g.group}/${trajectory}`);
    this.view = {
      from: { step: g.step, group: g.group, trajectory },
      task: r.task,
      taskType: r.taskType,
      taskIndex: g.taskIndex,
      initialObservation: r.observation,
      ...(episodeSkill ? { episodeSkill } : {}),
      decoding: config.decoding,
      temperature: config.temperature,
      historyTurns: config.historyTurns,
      k: ACT_TOP_K,
      maxSteps: this.env.maxSteps,
      turns: [],
      done: false,
      success: false,
    };
  }

  /**
   * Plays one turn with `policy` (see the module comment) and returns it (also appended to `view.turns`).
   * @throws Error when the episode is over, or from scoring (an action list nothing of which fits maxActionTokens).
   */
  async step(policy: PolicyHandle, weightsStep: number, greedy: boolean): Promise<ActTurn> {
    if (this.view.done)
      throw new Error(
        `the episode is over (${this.view.success ? 'task complete' : 'step limit'}); press Act to play the task again`,
      );
    const { tok, cfg } = policy;
    const c = this.config;
    const adm = this.env.admissibleActions();
    const prompt = buildPrompt(
      tok,
      {
        task: this.view.task,
        history: this.hist,
        observation: this.obs,
        admissible: adm,
        historyTurns: c.historyTurns,
        episodeSkill: this.view.episodeSkill,
      },
      cfg.maxSeq - c.maxActionTokens,
    );
    const o = { decoding: c.decoding, temperature: c.temperature, maxActionTokens: c.maxActionTokens };
    const ranked = rankActions(await scoreActions(policy, prompt, adm, o));
    const top = ranked.slice(0, ACT_TOP_K);
    const chosen = greedy
      ? await this.greedyChoice(policy, prompt, adm, ranked)
      : await this.sampled(policy, prompt, adm, ranked);
    const st = this.env.step(chosen.action);
    const turn: ActTurn = {
      turn: this.view.turns.length + 1,
      observation: this.obs,
      admissibleCount: adm.length,
      top,
      rest: Math.max(0, 1 - top.reduce((s, a) => s + a.prob, 0)),
      chosen: { ...chosen, valid: st.valid },
      reward: st.reward,
      done: st.done,
      reply: st.observation,
      weightsStep,
    };
    this.hist.push({ action: chosen.action, observation: st.observation });
    this.obs = st.observation;
    this.view.turns.push(turn);
    if (st.success) this.view.success = true;
    if (st.done) this.view.done = true;
    return turn;
  }

  /**
   * The greedy choice: the list's most probable action; when that is an open form (`search[`), the form filled
   * token by token with the most probable token under the form's own trie (its words, `]`, <eos>), so the action
   * played is a whole `search[…]` rather than the bare form (which the environment refuses). A fill cut at
   * maxActionTokens is played as it is, as a rollout plays it. The fill's probability and log-prob are the sampler's
   * own at the run's temperature and decoding (scored over the whole admissible list's trie).
   */
  private async greedyChoice(
    policy: PolicyHandle,
    prompt: readonly number[],
    adm: readonly string[],
    ranked: readonly ActionProb[],
  ): Promise<Omit<ActChoice, 'valid'>> {
    const best = ranked[0];
    if (!isOpenAction(best.action))
      return { action: best.action, how: 'greedy', prob: best.prob, logp: best.logp, rank: 1 };
    const { tok, cfg } = policy;
    const c = this.config;
    const eos = tok.special('<eos>');
    const form = admissibleTrie(tok, [best.action]);
    // Temperature 1e-9 puts all the mass on the most probable allowed token (the draw cannot pick another), and the
    // generator is a local one: the episode's own draws stay as they were.
    const [r] = await sampleResponses(policy.params, cfg, [prompt], {
      temperature: GREEDY_TEMPERATURE,
      maxTokens: c.maxActionTokens,
      eos,
      freeRow: policy.freeRow,
      rng: new Rng(0),
      allowed: (_row, prefix) => form.allowed(prefix),
    });
    const trie = c.decoding === 'admissible' ? admissibleTrie(tok, adm) : null;
    const sample = {
      prompt,
      response: r.tokens,
      allowed: r.tokens.map((_, t) => (trie ? trie.allowed(r.tokens.slice(0, t)) : null)),
    };
    const scored = await scoreSamples(policy.params, cfg, [sample], policy.freeRow, { temperature: c.temperature });
    const logp = scored.logp.reduce((s, x) => s + x, 0);
    return {
      action: responseAction(tok, r.tokens, eos),
      how: 'greedy',
      prob: Math.exp(logp),
      logp,
      rank: 1,
      form: best.action,
    };
  }

  /**
   * The sampled choice: drawn by the rollout's sampler with the episode's generator. An admissible action gets its
   * list probability and rank; words written in an admissible open form (`search[red shoes]`) get the form's rank,
   * the form (`form`) and the sampler's probability of the whole action; anything else (cut at maxActionTokens, or
   * free decoding's inadmissible text) the sampler's probability and no rank.
   */
  private async sampled(
    policy: PolicyHandle,
    prompt: readonly number[],
    adm: readonly string[],
    ranked: readonly ActionProb[],
  ): Promise<Omit<ActChoice, 'valid'>> {
    const c = this.config;
    const eos = policy.tok.special('<eos>');
    const trie = c.decoding === 'admissible' ? admissibleTrie(policy.tok, adm) : null;
    const [r] = await sampleResponses(policy.params, policy.cfg, [prompt], {
      temperature: c.temperature,
      maxTokens: c.maxActionTokens,
      eos,
      freeRow: policy.freeRow,
      rng: this.rng,
      allowed: (_row, prefix) => (trie ? trie.allowed(prefix) : null),
    });
    const action = responseAction(policy.tok, r.tokens, eos);
    const ended = r.tokens[r.tokens.length - 1] === eos;
    const k = ended ? ranked.findIndex((a) => a.action === action) : -1;
    const logp = r.sampleLogp.reduce((s, x) => s + x, 0);
    if (k >= 0) return { action, how: 'sampled', prob: ranked[k].prob, logp: ranked[k].logp, rank: k + 1 };
    const form = ended ? openFormOf(action, adm) : null;
    const f = form === null ? -1 : ranked.findIndex((a) => a.action === form);
    return f >= 0
      ? { action, how: 'sampled', prob: Math.exp(logp), logp, rank: f + 1, form: form! }
      : { action, how: 'sampled', prob: Math.exp(logp), logp, rank: null };
  }
}

/** Temperature of the greedy fill of an open form: low enough that only the most probable token can be drawn. */
const GREEDY_TEMPERATURE = 1e-9;

/** A sampled response as the action it plays (rollout/runner.ts: <eos> dropped; a response cut before it, as is). */
function responseAction(tok: PolicyHandle['tok'], tokens: readonly number[], eos: number): string {
  const body = tokens[tokens.length - 1] === eos ? tokens.slice(0, -1) : tokens;
  return tok.decode(body, { skipSpecial: true }).replace(/^ /, '');
}

/**
 * The admissible open form `action` fills (`search[` for `search[red shoes]`: the form, words and a closing `]`), or
 * null; compared in the environment's normal form.
 */
export function openFormOf(action: string, adm: readonly string[]): string | null {
  const t = normalizeAction(action);
  return adm.find((a) => isOpenAction(a) && t.length > a.length + 1 && t.startsWith(a) && t.endsWith(']')) ?? null;
}

/** What the act API needs from the worker. */
export interface ActDeps {
  /** TrainingSession.withPolicy: runs `read` on the live policy between updates, or rejects saying why it cannot. */
  withPolicy<T>(read: (live: LivePolicy) => Promise<T>): Promise<T>;
  /** The trajectory store's group, or null when it is not held. */
  group(step: number, group: number): GroupDetail | null;
}

/**
 * The worker's act methods (TrainerApi.actStart / actStep) over one episode at a time.
 * `actStart` replaces any episode in progress; `actStep` plays its next turn.
 */
export function actApi(deps: ActDeps): {
  actStart(step: number, group: number, trajectory: number): Promise<ActEpisodeView>;
  actStep(greedy: boolean): Promise<ActEpisodeView>;
} {
  let episode: ActEpisode | null = null;
  /** The run the episode belongs to (a new configure makes a new config object). */
  let of: RunConfig | null = null;
  const snapshot = (e: ActEpisode): ActEpisodeView => structuredClone(e.view);
  return {
    async actStart(step, group, trajectory) {
      const g = deps.group(step, group);
      if (!g)
        throw new Error(
          `the explorer holds no group ${group} of step ${step} (evicted, or a new run); pick a step it holds`,
        );
      return deps.withPolicy(async (live) => {
        episode = new ActEpisode(live.config, g, trajectory, live.policy.tok);
        of = live.config;
        return snapshot(episode);
      });
    },
    async actStep(greedy) {
      const e = episode;
      if (!e) throw new Error('no episode is being played; press Act first');
      return deps.withPolicy(async (live) => {
        if (live.config !== of) throw new Error('the run has changed since Act was pressed; press Act again');
        await e.step(live.policy, live.step, greedy);
        return snapshot(e);
      });
    },
  };
}
