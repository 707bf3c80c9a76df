/**
 * The mistakes of a failed searchqa trajectory, judged step by step against a plan of hops (plan.ts): what it did
 * that the plan would not have, each with a warning sign in the skill grammar's words (src/core/skills/grammar.ts
 * `warningSign`) and the plan's move there as the fix. The kinds the group shows (Search-R1's multi-hop failures):
 * an invalid action, a search repeated, a search on the last step (steps run out: only an answer can score there), a
 * search for the wrong entity, an answer before the hop that holds it was searched, a wrong name copied from a
 * passage.
 */
import { warningSign } from '../../../skills/grammar';
import { findsHop, lastStep, nextHop, planMove, repeats, type QaPlan, type ReadTrajectory } from './plan';
import { sameAction } from './read';

/** A mistake: the step, what was done (as written), the warning sign and the fix (an action), when one is known. */
export interface QaMistake {
  i: number;
  mistake: string;
  sign: string;
  fix?: string;
}

/**
 * The warning sign of a valid step i whose fix is `fix` (see the module doc):
 * - a search repeated: `you already did that`; a search on the last step: `steps run out`;
 * - the fix searches a hop the question names (a chain's subject, a comparison's two, a clue's facts): `the task
 *   names <it>`;
 * - the fix searches a hop a passage names: after a search, `the task target is <that name>`; after an answer (given
 *   before the hop was searched), `the task target is <what the question asks: a town, a year …>`;
 * - the fix is the answer: `the task target is <the answer>`.
 */
function signOf(p: QaPlan, r: ReadTrajectory, i: number, fix: string): string {
  const s = r.steps[i];
  if (repeats(r, i)) return warningSign('repeat');
  if (s.verb === 'search' && lastStep(i)) return warningSign('timeout');
  const hop = fix.startsWith('search[') ? nextHop(p, r, i) : undefined;
  if (!hop) return warningSign('wrongPlace', p.answer ?? '');
  if (hop.fromQuestion) return warningSign('wrongObject', hop.name);
  return warningSign('wrongPlace', s.verb === 'answer' ? (p.answerKind ?? hop.name) : hop.name);
}

/**
 * The mistakes of `r` against plan `p`, in step order (see the module doc). A step is no mistake when it is the
 * plan's move there (`planMove`, compared as the env compares actions), or a valid search before the last step that
 * showed a hop's passage not seen before (another query that finds it). Judged without a fix: an invalid action, a
 * repeated search, a search on the last step. An answer is judged against the plan's answer when the plan knows it;
 * anything else is judged only where the plan has a move.
 */
export function planMistakes(r: ReadTrajectory, p: QaPlan): QaMistake[] {
  const out: QaMistake[] = [];
  r.steps.forEach((s, i) => {
    const answerFix = s.verb === 'answer' && p.answer !== null ? `answer[${p.answer}]` : undefined;
    const fix = planMove(p, r, i) ?? answerFix;
    const m = (sign: string) => out.push({ i, mistake: s.action, sign, ...(fix && fix !== s.action ? { fix } : {}) });
    if (!s.valid) return m(warningSign('invalid'));
    const lateSearch = s.verb === 'search' && lastStep(i);
    if (!lateSearch && (findsHop(p, r, i) || (fix !== undefined && sameAction(s.action, fix)))) return;
    if (fix !== undefined) return m(signOf(p, r, i, fix));
    if (repeats(r, i)) return m(warningSign('repeat'));
    if (lateSearch) return m(warningSign('timeout'));
  });
  return out;
}
