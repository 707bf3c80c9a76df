/**
 * Search steps of a household trajectory: the `go to R` and `open R` commands taken before any observation so far
 * (the step's own included) showed an object of the kind the task names. There the agent chooses where to look
 * without knowing where the object lies (ALFWorld hides it until the agent is at, or has opened, its receptacle;
 * Shridhar et al., 2021), so a skill written in hindsight that names the object's place is information the policy
 * could not have had at that step (the imitation gap of a privileged teacher; Weihs et al., 2021).
 */
import { lookObject, taskObjectKind } from './task-text';

/**
 * Indices of the search steps (see the module doc). Steps are in order; `observation` is the one the step's action
 * was chosen on (the room overview at step 0). Tasks whose object kind the task line does not name → [].
 */
export function householdSearchSteps(
  task: string,
  steps: readonly { action: string; observation: string }[],
): number[] {
  const kind = lookObject(task) ?? taskObjectKind(task);
  if (!kind) return [];
  const seen = new RegExp(`\\b${kind} \\d+`);
  const out: number[] = [];
  for (let i = 0; i < steps.length; i++) {
    if (seen.test(steps[i].observation)) break;
    if (/^(go to|open) /.test(steps[i].action.trim().toLowerCase())) out.push(i);
  }
  return out;
}
