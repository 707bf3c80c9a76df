/**
 * The explorer's prompt view: a prompt built by core/rollout/prompt.ts splits back into its sections exactly (task,
 * episode skill, history window, observation, admissible actions, step skill), and the raw text keeps the markers.
 */
import { describe, expect, it } from 'vitest';
import { getEnvSpec } from '../../src/core/envs/registry';
import { buildTokenizer } from '../../src/core/model/policy';
import { buildPrompt } from '../../src/core/rollout/prompt';
import { promptView } from '../../src/worker/explorer-view';

const tok = buildTokenizer(getEnvSpec('household'));

describe('promptView', () => {
  it('splits a prompt into the sections it was built from', () => {
    const input = {
      task: 'put a clean apple in fridge.',
      episodeSkill: 'clean it first.',
      history: [
        { action: 'go to sinkbasin 1', observation: 'On the sinkbasin 1, you see nothing.' },
        { action: 'look', observation: 'You are in the middle of a room.' },
      ],
      observation: 'You arrive at fridge 1.',
      admissible: ['open fridge 1', 'look'],
      historyTurns: 3,
      stepSkill: 'open the fridge.',
    };
    const v = promptView(buildPrompt(tok, input, 400), tok);
    expect(v).toMatchObject({
      task: input.task,
      episodeSkill: input.episodeSkill,
      history: input.history,
      observation: input.observation,
      admissible: input.admissible,
      stepSkill: input.stepSkill,
    });
    expect(v.raw.startsWith('<bos><task> put a clean apple')).toBe(true);
    expect(v.raw.endsWith('<act>')).toBe(true);
  });

  it('an empty history window and no skills', () => {
    const ids = buildPrompt(
      tok,
      {
        task: 'look.',
        history: [{ action: 'look', observation: 'x' }],
        observation: 'room',
        admissible: ['look'],
        historyTurns: 0,
      },
      400,
    );
    const v = promptView(ids, tok);
    expect(v).toMatchObject({
      task: 'look.',
      history: [],
      observation: 'room',
      admissible: ['look'],
      length: ids.length,
    });
    expect('episodeSkill' in v || 'stepSkill' in v).toBe(false);
  });
});
