/**
 * The `oracle` analyzer — PRIVILEGED: it reads the environment's hidden state through the environment's expert, which
 * no real analyzer can. It writes the skills a perfect analyzer would, in the grammar the base policy was taught
 * (src/core/skills/grammar.ts), so it is the ceiling of what hindsight skills can give OPID and Skill-GRPO: a run with
 * it separates OPID's mechanism from the quality of its analyzer. It is not a fair comparison with `heuristic` or
 * `http`.
 *
 * For each trajectory (OPID, Yang et al. 2026, §3; docs/references.md#opid, with the expert as the analyzer):
 * - episode skill: the expert's whole plan for the task from its initial state (envs/expert-hints.ts
 *   `correctEpisodeSkill`, the same text hinted evaluation and the base policy's demonstrations use);
 * - step skills: the trajectory's actions are replayed through a fresh env of the same task (the trajectory's
 *   privileged `ref`, AnalyzerTrajectory.ref); at each step the expert is asked for its action in the state reached;
 *   the steps whose action differs from the expert's (compared in the environment's normal form) are the critical
 *   steps, and the first K of them get the step skill naming the expert's action there as the expert wrote it
 *   (`stepSkill`; names keep their case, as in the expert's plan and hints).
 *
 * The replay is checked against the record: a task line, an observation, an action's validity or the outcome that
 * differs (another preset or environment version, an edited trajectory) fails that trajectory's analysis (null, the
 * reason counted in `stats()`) rather than giving skills for another state. A trajectory without `ref` fails too.
 */
import type { EnvSpec, TaskRef } from '../envs/types';
import { normalizeAction } from '../envs/types';
import { stepSkill } from '../skills/grammar';
import { correctEpisodeSkill } from '../envs/expert-hints';
import { now } from '../clock';
import type {
  Analyzer,
  AnalyzerGroup,
  AnalyzerOptions,
  AnalyzerStats,
  AnalyzerTrajectory,
  AnalysisResult,
  TrajectorySkills,
} from './types';
import { checkMaxStepSkills, emptyStats } from './types';

/** Why an oracle analysis fails, in words for the run's failure notice (the keys of AnalyzerStats.failureReasons). */
export const ORACLE_FAILURES = {
  noRef: 'oracle: the trajectory carries no task reference (ref) to replay',
  badRef: 'oracle: the task reference addresses no task of this environment',
  task: 'oracle replay diverged: the task line differs from the recorded one (another preset or environment version?)',
  observation:
    'oracle replay diverged: an observation differs from the recorded one (another preset or environment version?)',
  validity: 'oracle replay diverged: an action was admissible in one and not in the other',
  ended: 'oracle replay diverged: the replayed episode ended before the recorded one',
  outcome: 'oracle replay diverged: the outcome differs from the recorded one',
  env: "oracle: the group's environment is not the one the oracle was built for",
} as const;

/** A failed replay: `reason` is one of ORACLE_FAILURES (counted), `message` adds where (step index, texts). */
export class OracleReplayError extends Error {
  /**
   * @param reason one of ORACLE_FAILURES' values.
   * @param detail where and what differed, appended to the message.
   */
  constructor(
    readonly reason: string,
    detail = '',
  ) {
    super(detail ? `${reason}: ${detail}` : reason);
    this.name = 'OracleReplayError';
  }
}

/** What a replay finds: the expert's action at each step's state and at the state reached. */
export interface ExpertReplay {
  /** atStep[i]: the expert's action (normal form) in the state step i was taken in; one per recorded step. */
  atStep: string[];
  /**
   * written[i]: the same action as the expert wrote it (its names' case kept, e.g. a search QA env's
   * `search[Mira Yarrow]`), what a step skill names; equal to atStep[i] where the expert writes the normal form.
   */
  written: string[];
  /** The expert's action in the state after the last recorded step; undefined when the episode is over there. */
  next: string | undefined;
}

/** The first 60 characters of an observation, for a message. */
const clip = (s: string) => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s);

/** Throws OracleReplayError(observation) when the replayed observation `got` is not the recorded `want`. */
function checkObservation(got: string, want: string, where: string): void {
  if (got !== want)
    throw new OracleReplayError(ORACLE_FAILURES.observation, `${where}: replayed ${clip(got)}, recorded ${clip(want)}`);
}

/**
 * Replay a trajectory through a fresh env of its task (spec.create(preset); env.reset(ref); env.step(action) per
 * step) and ask the expert (spec.expert(env).act()) for its action before each step and after the last one.
 * Privileged: reads the environment's hidden state through its expert.
 * @param traj the trajectory, with its `ref`; its observations, validity flags, final observation and outcome are
 *   checked against the replay.
 * @throws OracleReplayError when `traj.ref` is missing, the env refuses it, or the replay differs from the record.
 * @throws Error from `spec.create` on an unknown preset.
 */
export function replayExpert(spec: EnvSpec, preset: string, traj: AnalyzerTrajectory): ExpertReplay {
  const ref = requireRef(traj);
  const env = spec.create(preset);
  let r;
  try {
    r = env.reset(ref);
  } catch (e) {
    throw new OracleReplayError(ORACLE_FAILURES.badRef, (e as Error).message);
  }
  if (r.task !== traj.task)
    throw new OracleReplayError(ORACLE_FAILURES.task, `replayed ${clip(r.task)}, recorded ${clip(traj.task)}`);
  const expert = spec.expert(env);
  const atStep: string[] = [];
  const written: string[] = [];
  let obs = r.observation,
    done = false,
    success = false;
  traj.steps.forEach((s, i) => {
    if (done) throw new OracleReplayError(ORACLE_FAILURES.ended, `after step ${i - 1} of ${traj.steps.length}`);
    checkObservation(obs, s.observation, `step ${i}`);
    written.push(expert.act().trim());
    atStep.push(normalizeAction(written[i]));
    const st = env.step(s.action);
    if (st.valid !== s.valid)
      throw new OracleReplayError(
        ORACLE_FAILURES.validity,
        `step ${i} (${clip(s.action)}): replayed valid=${st.valid}`,
      );
    obs = st.observation;
    done = st.done;
    success ||= st.success;
  });
  checkObservation(obs, traj.finalObservation, 'the final observation');
  if (success !== traj.success)
    throw new OracleReplayError(ORACLE_FAILURES.outcome, `replayed success=${success}, recorded ${traj.success}`);
  return { atStep, written, next: done ? undefined : normalizeAction(expert.act()) };
}

/** The trajectory's task reference. @throws OracleReplayError(noRef) when it has none. */
function requireRef(traj: AnalyzerTrajectory): TaskRef {
  if (!traj.ref) throw new OracleReplayError(ORACLE_FAILURES.noRef, `task ${clip(traj.task)}`);
  return traj.ref;
}

/**
 * The oracle's skills for one trajectory (see the module doc): the expert's plan as the episode skill, and a step
 * skill naming the expert's action at each of the first K steps whose action differs from it. Privileged.
 * @param K max step skills (integer ≥ 0).
 * @param episode the episode skill when the caller already has it for this task (a group shares one task).
 * @throws OracleReplayError as `replayExpert`.
 */
export function oracleSkills(
  spec: EnvSpec,
  preset: string,
  traj: AnalyzerTrajectory,
  K: number,
  episode?: string,
): TrajectorySkills {
  const { atStep, written } = replayExpert(spec, preset, traj);
  const stepSkills: Record<number, string> = {};
  let n = 0;
  for (let i = 0; i < atStep.length && n < K; i++)
    if (normalizeAction(traj.steps[i].action) !== atStep[i]) {
      stepSkills[i] = stepSkill(written[i]);
      n++;
    }
  return { episodeSkill: episode ?? correctEpisodeSkill(spec, preset, requireRef(traj)), stepSkills };
}

/** Options of the oracle analyzer: K, failedOnly, and the environment and preset the trajectories were played in. */
export interface OracleAnalyzerOptions extends AnalyzerOptions {
  /** The environment family (its expert is the oracle). */
  spec: EnvSpec;
  /** The preset the trajectories were played in (their tasks are replayed in it). */
  preset: string;
}

/** The privileged `oracle` analyzer (see the module doc): never throws for a bad trajectory; it gets null. */
export class OracleAnalyzer implements Analyzer {
  readonly name = 'oracle';
  private readonly s: AnalyzerStats = emptyStats();

  /**
   * @param o K (maxStepSkills ≥ 0), failedOnly, the env spec and its preset.
   * @throws Error if K is negative or not an integer, or naming the accepted presets on an unknown preset.
   */
  constructor(private readonly o: OracleAnalyzerOptions) {
    checkMaxStepSkills('oracle', o.maxStepSkills);
    o.spec.taskTypes(o.preset);
  }

  /**
   * Skills per trajectory of the group, in its order; null for a failed replay (counted by reason) and, with
   * `failedOnly`, for successes (not counted).
   * @throws the signal's reason when `signal` has aborted.
   */
  async analyze(group: AnalyzerGroup, signal?: AbortSignal): Promise<AnalysisResult> {
    signal?.throwIfAborted();
    const t0 = now();
    const episodes = new Map<string, string>();
    const out = group.trajectories.map((t) => {
      if (this.o.failedOnly && t.success) return null;
      this.s.calls++;
      try {
        if (group.env !== this.o.spec.name)
          throw new OracleReplayError(ORACLE_FAILURES.env, `"${group.env}", not "${this.o.spec.name}"`);
        const key = t.ref ? `${t.ref.split}/${t.ref.index}` : '';
        const skills = oracleSkills(this.o.spec, this.o.preset, t, this.o.maxStepSkills, episodes.get(key));
        episodes.set(key, skills.episodeSkill);
        return skills;
      } catch (e) {
        this.fail(e instanceof OracleReplayError ? e.reason : `oracle replay failed: ${(e as Error).message}`);
        return null;
      }
    });
    this.s.latencyMs += now() - t0;
    return out;
  }

  /** Cumulative counters (a copy): calls = trajectories analysed, latencyMs = time spent replaying. */
  stats(): AnalyzerStats {
    return { ...this.s, failureReasons: { ...this.s.failureReasons } };
  }

  private fail(reason: string): void {
    this.s.failures++;
    this.s.failureReasons[reason] = (this.s.failureReasons[reason] ?? 0) + 1;
  }
}
