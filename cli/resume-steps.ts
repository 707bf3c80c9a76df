/**
 * The steps of `train --resume DIR [--steps N]` (cli/train-rundir.ts): a resumed run keeps or extends its plan. The
 * plan is the latest resume's steps, else the config's (`plannedSteps`, src/core/run/summary.ts), which `compare`
 * shows as steps done/planned and as its `steps` setting. Without `--steps` the run continues to its plan; `--steps N`
 * below the plan is refused, naming the steps done, the latest checkpoint and the plan (shortening a run would
 * change the learning-rate schedule and the last evaluation of the steps still to come and leave a record whose
 * plan went back); a run whose latest checkpoint has reached the steps asked is refused as having nothing to do.
 */
import path from 'node:path';
import type { RecordEvent, RunRecord } from '../src/core/run/record';
import { plannedSteps } from '../src/core/run/summary';
import { counted } from '../src/core/count-text';

/** Where a run's plan comes from, in words: run.json's config, or its latest resume's --steps. */
function planSource(run: RunRecord): string {
  const last = run.resumes.at(-1);
  return last ? `run.json: its latest resume's, from step ${last.fromStep}` : "run.json's config";
}

/**
 * The steps a `--resume` of run `run` in `dir` trains to, or the refusal (a message for `train: --resume: …`).
 * @param given the `--steps` given on the command line, or undefined.
 * @param checkpoint the step of the latest checkpoint it would continue from.
 */
export function resumeSteps(
  dir: string,
  run: RunRecord,
  events: readonly RecordEvent[],
  given: number | undefined,
  checkpoint: number,
): { steps: number } | { refusal: string } {
  const plan = plannedSteps(run);
  const done = events.reduce((m, e) => (e.event === 'step' ? Math.max(m, e.step) : m), 0);
  const finished = events.some((e) => e.event === 'done') && done >= plan;
  const state =
    `${done} step${done === 1 ? '' : 's'} done${finished ? ' (finished)' : ''}, latest checkpoint at step ` +
    `${checkpoint}`;
  if (given !== undefined && given < plan)
    return {
      refusal:
        `--steps ${given} is below the run's plan of ${counted(plan, 'step')} (${planSource(run)}; ${state}). A ` +
        `resumed run keeps or extends its plan: drop --steps to continue to step ${plan}, or pass --steps ` +
        `N ≥ ${plan}${plan <= checkpoint ? ` (N > ${checkpoint} to train on)` : ''}; to use the run as it was at ` +
        `an earlier step, take its checkpoint of that step (${path.join(dir, 'ckpt-<k>.safetensors')}, for eval ` +
        `--policy or train --init)`,
    };
  const steps = given ?? plan;
  const asked = given !== undefined && given !== plan ? `--steps ${given} ends at step ${given}` : '';
  if (checkpoint >= steps)
    return {
      refusal:
        `${asked || `the run's plan is ${counted(plan, 'step')}`} (${state}): nothing to do; pass --steps ` +
        `N > ${checkpoint} to extend it`,
    };
  return { steps };
}
