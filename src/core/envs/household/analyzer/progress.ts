/**
 * Task progress read from the task text and a trajectory's own observations, for the heuristic analyzer's failed
 * trajectories (src/core/envs/household/analyzer/heuristic.ts). ALFWorld's tasks (Shridhar et al., 2021) can be solved
 * along many routes: another object of the task's kind, another receptacle searched first, another order of the two
 * objects of a pick-two task. A failed trajectory that takes one of those routes at some step did not make its mistake
 * there, so hindsight must not name a different action at that step: a step skill against a move that advanced the task
 * teaches the policy to avoid the move (the skill-conditioned policy gives it a much lower log-prob, and A_skill =
 * ℓ_skill − ℓ_old punishes it; OPID, Yang et al. 2026, §3, docs/references.md#opid).
 *
 * Reads only what the trajectory shows (task line, actions, validity, the replies to them); never hidden state.
 */
import { kindOf } from './tracked-state';
import { lookObject } from '../task-text';

/** Object and target kinds, and the treatment the task needs, from a household task line (null for other shapes). */
export interface TaskKinds {
  /** Kind of the object to move, e.g. `apple` (a pick-two task names it in the singular too). */
  object: string;
  /** Kind of the receptacle it must end in, e.g. `fridge`. */
  target: string;
  /** The command that treats the object (`clean`, `heat`, `cool`), or null when the task needs none. */
  treat: 'clean' | 'heat' | 'cool' | null;
}

const TREAT: Record<string, TaskKinds['treat']> = { clean: 'clean', hot: 'heat', cool: 'cool' };

/**
 * The kinds a household task line `put a [clean|hot|cool] X in Y.` / `put two X in Y.` names (household text rules,
 * src/core/envs/household/text.ts); null for `look at X under the desklamp.` and any other shape.
 */
export function taskKinds(task: string): TaskKinds | null {
  const m = task.match(/\b(?:a|an|some|two)\s+(?:(clean|hot|cool) )?([a-z]+)\s+(?:in|on)\s+(?:the\s+)?([a-z]+)/);
  return m ? { object: m[2], target: m[3], treat: m[1] ? TREAT[m[1]] : null } : null;
}

export { lookObject } from '../task-text';

/** Whether the trajectory holds an object of kind `kind` after its steps before `i` (its own valid takes and moves). */
function holdsKind(steps: readonly { action: string; valid: boolean }[], i: number, kind: string): boolean {
  let held: string | null = null;
  for (const s of steps.slice(0, i)) {
    if (!s.valid) continue;
    const take = s.action.match(/^take (.+?) from /);
    if (take) held = take[1];
    else if (/^move /.test(s.action)) held = null;
  }
  return held !== null && kindOf(held) === kind;
}

/** What a valid step of a failed trajectory did for its task, when it is not the workflow's next action. */
export type StepProgress =
  /** Not recognisably progress: the analyzer may call it a mistake. */
  | { kind: 'none' }
  /** Progress by another route; `advance`: the workflow action it stands for (the walk continues after it), if any. */
  | { kind: 'progress'; advance?: number }
  /** Putting down an object the task does not need: undoes an earlier mistake, is none itself. */
  | { kind: 'undo' };

/** Decisive (state-changing) workflow actions: everything but navigation and information commands. */
const isDecisive = (a: string): boolean => !/^(go to|open|close|examine|look|inventory)\b/.test(a);

/**
 * How step `i` (valid, and not the workflow's next action `w[next]`) of a failed trajectory relates to its task:
 * - `take O from R` with O of the task's kind, from a receptacle that is not of the target kind → progress (another
 *   object or place than the sibling's); it stands for the workflow's next decisive action when that is a `take` too.
 * - the task's treatment of an object of its kind (`clean O with R` for a clean task, …) → progress, standing for
 *   the workflow's next decisive action when that is the same treatment.
 * - `move O to R` with O of the task's kind and R of the target kind, after the trajectory treated O when the task
 *   needs it → progress, standing for the workflow's next decisive action when that is such a move.
 * - `move O to R` with O not of the task's kind → undo (it puts down what an earlier mistaken `take` picked up).
 * - `go to R` / `open R` whose reply shows an object of the task's kind → progress (a search that found one).
 * - a `look at X under the desklamp.` task: `take` of an X (from anywhere) → progress; `use desklamp N` while holding
 *   an X → progress; `move` of anything else → undo; a search that found an X → progress; the rest → none.
 * Everything else → none.
 * @param t the trajectory: task line, steps (actions in the environment's normal form), final observation.
 * @param w the group's shortest successful workflow; `next` the walk's position in it.
 */
export function stepProgress(
  t: {
    task: string;
    steps: readonly { action: string; valid: boolean; observation: string }[];
    finalObservation: string;
  },
  i: number,
  w: readonly string[],
  next: number,
): StepProgress {
  const s = t.steps[i];
  const look = lookObject(t.task);
  const k: TaskKinds | null = look ? { object: look, target: '', treat: null } : taskKinds(t.task);
  if (!k || !s.valid) return { kind: 'none' };
  const j = w.findIndex((a, x) => x >= next && isDecisive(a));
  const standsFor = (same: (a: string) => boolean): StepProgress => ({
    kind: 'progress',
    ...(j >= 0 && same(w[j]) ? { advance: j } : {}),
  });
  if (look && /^use /.test(s.action)) {
    if (!holdsKind(t.steps, i, look)) return { kind: 'none' };
    return standsFor((a) => a.startsWith('use '));
  }
  const take = s.action.match(/^take (.+?) from (.+)$/);
  if (take) {
    if (kindOf(take[1]) !== k.object || kindOf(take[2]) === k.target) return { kind: 'none' };
    return standsFor((a) => {
      const m = a.match(/^take (.+?) from /);
      return !!m && kindOf(m[1]) === k.object;
    });
  }
  const treat = s.action.match(/^(clean|heat|cool) (.+?) with (.+)$/);
  if (treat) {
    if (treat[1] !== k.treat || kindOf(treat[2]) !== k.object) return { kind: 'none' };
    return standsFor(
      (a) => a.startsWith(`${treat[1]} `) && kindOf(a.match(/^\S+ (.+?) with /)?.[1] ?? '') === k.object,
    );
  }
  const move = s.action.match(/^move (.+?) to (.+)$/);
  if (move) {
    if (kindOf(move[1]) !== k.object) return { kind: 'undo' };
    if (look || kindOf(move[2]) !== k.target) return { kind: 'none' };
    const treated =
      k.treat === null ||
      t.steps.slice(0, i).some((p) => p.valid && p.action.startsWith(`${k.treat} ${move[1]} with `));
    if (!treated) return { kind: 'none' };
    return standsFor((a) => {
      const m = a.match(/^move (.+?) to (.+)$/);
      return !!m && kindOf(m[1]) === k.object && kindOf(m[2]) === k.target;
    });
  }
  if (/^(go to|open) /.test(s.action)) {
    const reply = i + 1 < t.steps.length ? t.steps[i + 1].observation : t.finalObservation;
    if (new RegExp(`\\b${k.object} \\d+`).test(reply)) return { kind: 'progress' };
  }
  return { kind: 'none' };
}
