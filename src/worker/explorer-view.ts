/**
 * What the page's rollout explorer receives for one stored group (worker layer): the group as the trainer used it
 * (core/train/step-detail.ts) with each prompt decoded into its sections exactly as the policy saw them (the prompt
 * layout of core/rollout/prompt.ts: task, episode skill, history window, observation, admissible actions, step skill)
 * and each action split into its token texts. The per-token numbers travel as the float32 vectors the trainer used.
 */
import type { Tokenizer } from '../core/tokenizer/tokenizer';
import type { GroupDetail } from '../core/train/step-detail';
import type { ExplorerGroup, PromptView } from './api';

/** Splits prompt ids at the section markers of core/rollout/prompt.ts and decodes each section. */
export function promptView(ids: ArrayLike<number>, tok: Tokenizer): PromptView {
  const S = (n: Parameters<Tokenizer['special']>[0]) => tok.special(n);
  const markers = new Map<number, string>([
    [S('<task>'), 'task'],
    [S('<skill>'), 'skill'],
    [S('<hist>'), 'hist'],
    [S('<obs>'), 'obs'],
    [S('<actions>'), 'actions'],
    [S('<step_skill>'), 'step'],
    [S('<act>'), 'act'],
    [S('<bos>'), 'bos'],
  ]);
  const sep = S('<sep>');
  const sections: Record<string, number[][]> = {};
  let cur = 'pre';
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    const m = markers.get(id);
    if (m !== undefined) {
      cur = m;
      (sections[cur] ??= []).push([]);
      continue;
    }
    const list = (sections[cur] ??= [[]]);
    if (id === sep) list.push([]);
    else list[list.length - 1].push(id);
  }
  const text = (x: number[] | undefined) => (x ? tok.decode(x, { skipSpecial: true }).replace(/^ /, '') : '');
  const parts = (key: string) => sections[key] ?? [];
  const histParts = parts('hist');
  const history: PromptView['history'] = [];
  for (let k = 0; k + 1 < histParts.length; k += 2)
    history.push({ action: text(histParts[k]), observation: text(histParts[k + 1]) });
  const joined = (key: string) => text((sections[key] ?? []).flat());
  return {
    task: joined('task'),
    ...(sections.skill ? { episodeSkill: joined('skill') } : {}),
    history,
    observation: joined('obs'),
    admissible: parts('actions')
      .map(text)
      .filter((a) => a.length > 0),
    ...(sections.step ? { stepSkill: joined('step') } : {}),
    raw: tok.decode(ids),
    length: ids.length,
  };
}

/** The group with decoded prompts and token texts (a new object; the stored group is not changed). */
export function explorerGroup(g: GroupDetail, tok: Tokenizer): ExplorerGroup {
  return {
    ...g,
    trajectories: g.trajectories.map((t) => ({
      ...t,
      turns: t.turns.map((u) => ({
        ...u,
        prompt: u.prompt ? promptView(u.prompt, tok) : null,
        tokenTexts: Array.from(g.tokens.ids.subarray(u.tokenStart, u.tokenStart + u.tokenCount), (id) =>
          tok.tokenText(id),
        ),
      })),
    })),
  };
}
