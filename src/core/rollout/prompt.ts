/**
 * Prompt building (the roll-out in a training step, docs/architecture.md): task, last H turns of history, current
 * observation, admissible actions, then the action cue. Layout in tokens:
 *
 *   <bos> <task> ␣task text  [<skill> ␣episode skill]  <hist> ␣a₁ <sep> ␣o₁ <sep> …  <obs> ␣observation
 *   <actions> ␣act₁ <sep> ␣act₂ <sep> …  [<step_skill> ␣step skill]  <act>
 *
 * and the response is ␣action <eos>. Skill blocks are reserved for OPID: the episode skill goes right
 * after the task line, a step skill right before the action cue. If the prompt is longer than `maxLen`, the oldest
 * history turns are dropped first, then admissible actions from the end of the list, then the observation is cut
 * from its start.
 */
import type { Tokenizer } from '../tokenizer/tokenizer';

/** One past turn. */
export interface Turn {
  action: string;
  observation: string;
}

/** What goes into a prompt. */
export interface PromptInput {
  task: string;
  /** Past turns, oldest first (only the last `historyTurns` are used). */
  history: readonly Turn[];
  observation: string;
  admissible: readonly string[];
  historyTurns: number;
  /** Optional episode-level skill (OPID). */
  episodeSkill?: string;
  /** Optional step-level skill (OPID). */
  stepSkill?: string;
}

/** Token ids of the response for an action text: ␣action <eos>. */
export function actionTokens(tok: Tokenizer, action: string): number[] {
  return tok.encode(' ' + action);
}

/** Build the prompt token ids (int32 values), at most `maxLen` long. @throws Error if maxLen < 16. */
export function buildPrompt(tok: Tokenizer, x: PromptInput, maxLen: number): number[] {
  if (maxLen < 16) throw new Error(`buildPrompt: maxLen must be ≥ 16, got ${maxLen}`);
  const S = (n: Parameters<Tokenizer['special']>[0]) => tok.special(n);
  const enc = (s: string) => tok.encode(' ' + s);
  const head = [S('<bos>'), S('<task>'), ...enc(x.task)];
  if (x.episodeSkill) head.push(S('<skill>'), ...enc(x.episodeSkill));
  const turns = x.historyTurns > 0 ? x.history.slice(-x.historyTurns) : [];
  let hist = turns.map((t) => [...enc(t.action), S('<sep>'), ...enc(t.observation), S('<sep>')]);
  let obs = [S('<obs>'), ...enc(x.observation)];
  let acts = x.admissible.map((a) => [...enc(a), S('<sep>')]);
  const tail = [...(x.stepSkill ? [S('<step_skill>'), ...enc(x.stepSkill)] : []), S('<act>')];
  const len = () =>
    head.length +
    1 +
    hist.reduce((s, h) => s + h.length, 0) +
    obs.length +
    1 +
    acts.reduce((s, a) => s + a.length, 0) +
    tail.length;
  while (len() > maxLen && hist.length) hist = hist.slice(1);
  while (len() > maxLen && acts.length) acts = acts.slice(0, -1);
  if (len() > maxLen) obs = [S('<obs>'), ...obs.slice(1 + len() - maxLen)];
  const out = [...head, S('<hist>'), ...hist.flat(), ...obs, S('<actions>'), ...acts.flat(), ...tail];
  return out.length > maxLen ? out.slice(out.length - maxLen) : out;
}
