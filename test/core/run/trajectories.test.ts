/** Sampled trajectories (src/core/run-files/trajectories.ts): the stored line, and the chat-messages JSONL export. */
import { describe, expect, it } from 'vitest';
import {
  NOT_KEPT_NUMBERS,
  NOT_KEPT_PROMPTS,
  chatMessages,
  f32Json,
  parseTrajectoryLines,
  storedGroup,
  toChatJsonl,
  trajectoryLine,
} from '../../../src/core/run-files/trajectories';
import type { GroupDetail } from '../../../src/core/train/step-detail';
import { cutEventsText, cutTrajectoriesText } from '../../../src/core/run-files/cut';
import type { TrajectoryView } from '../../../src/core/train/events';

const view: TrajectoryView = {
  task: 'put a clean apple in fridge.',
  taskType: 'clean',
  success: true,
  reward: 1,
  score: 1,
  advantage: 0.5,
  initialObservation: 'You are in the kitchen.',
  steps: [
    {
      observation: 'You are in the kitchen.',
      action: 'take apple 1',
      valid: true,
      tokens: [{ text: 'take', logpOld: -1, logpRef: -1, adv: 0.5, entropy: 1 }],
    },
    { observation: 'You pick up the apple 1.', action: 'clean apple 1 with sinkbasin 1', valid: true, tokens: [] },
  ],
};

describe('trajectories.jsonl', () => {
  it('keeps the text of each step and drops the token views', () => {
    const line = trajectoryLine({ step: 3, group: [view] });
    expect(JSON.parse(line)).toEqual({
      step: 3,
      group: [
        {
          task: view.task,
          taskType: 'clean',
          success: true,
          reward: 1,
          initialObservation: 'You are in the kitchen.',
          steps: [
            { observation: 'You are in the kitchen.', action: 'take apple 1', valid: true },
            { observation: 'You pick up the apple 1.', action: 'clean apple 1 with sinkbasin 1', valid: true },
          ],
        },
      ],
    });
    expect(parseTrajectoryLines(`${line}\n\n`)).toHaveLength(1);
    expect(() => parseTrajectoryLines(`${line}\n{"step":0,"group":[]}`)).toThrow(/trajectories.jsonl line 2: step/);
  });
  it(
    'keeps the skills of an OPID group: the episode skill, critical steps with their step skill, an ' +
      'analysis failure',
    () => {
      const opid: TrajectoryView = {
        ...view,
        episodeSkill: 'wash before cooling',
        steps: [
          { ...view.steps[0], critical: true, stepSkill: 'take the apple first' },
          { ...view.steps[1], critical: false },
        ],
      };
      const failed: TrajectoryView = {
        ...view,
        success: false,
        reward: 0,
        analyzerError: 'analyzer failed: HTTP 500 (server error)',
      };
      const line = trajectoryLine({ step: 4, group: [opid, failed] });
      const [rec] = parseTrajectoryLines(line);
      expect(rec.group[0].episodeSkill).toBe('wash before cooling');
      expect(rec.group[0].steps).toEqual([
        {
          observation: 'You are in the kitchen.',
          action: 'take apple 1',
          valid: true,
          critical: true,
          stepSkill: 'take the apple first',
        },
        {
          observation: 'You pick up the apple 1.',
          action: 'clean apple 1 with sinkbasin 1',
          valid: true,
          critical: false,
        },
      ]);
      expect(rec.group[1]).toMatchObject({ success: false, analyzerError: 'analyzer failed: HTTP 500 (server error)' });
      expect(Object.hasOwn(rec.group[1], 'episodeSkill')).toBe(false);
      expect(() => parseTrajectoryLines(line.replace('"critical":true', '"critical":"yes"'))).toThrow(
        /trajectories.jsonl line 1: group.0.steps.0.critical/,
      );
    },
  );
  it('exports one chat-messages line per trajectory, exactly', () => {
    const rec = parseTrajectoryLines(
      trajectoryLine({ step: 3, group: [view, { ...view, success: false, reward: 0, steps: [] }] }),
    );
    expect(toChatJsonl(rec)).toBe(
      '{"messages":[{"role":"user","content":"put a clean apple in fridge.\\nYou are in the ' +
        'kitchen."},{"role":"assistant","content":"take apple 1"},' +
        ('{"role":"user","content":"You pick up the apple 1."},{"role":"assistant","content":"clean apple ' +
          '1 with sinkbasin 1"}],') +
        '"reward":1,"success":true,"task":"put a clean apple in fridge.","step":3}\n' +
        ('{"messages":[{"role":"user","content":"put a clean apple in fridge.\\nYou are in the ' +
          'kitchen."}],"reward":0,"success":false,"task":"put a clean apple in fridge.","step":3}\n'),
    );
    expect(chatMessages(rec[0].group[0]).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });
});

/** Group 0 of step 3 as the trainer hands it to the explorer, for `view` (two turns: 1 + 2 action tokens). */
function detailOf(step = 3): GroupDetail {
  const f = (xs: number[]) => Float32Array.from(xs);
  return {
    step,
    group: 0,
    task: view.task,
    taskType: 'clean',
    taskIndex: 12,
    trajectories: [
      {
        success: true,
        reward: 1,
        score: 0.9,
        advantage: 0.5,
        invalidCount: 0,
        initialObservation: view.initialObservation,
        turns: [
          {
            prompt: Int32Array.from([1, 2, 3]),
            observation: view.steps[0].observation,
            reply: view.steps[1].observation,
            action: 'take apple 1',
            valid: true,
            reward: 0,
            done: false,
            tokenStart: 0,
            tokenCount: 1,
          },
          {
            prompt: Int32Array.from([1, 2, 4]),
            observation: view.steps[1].observation,
            reply: 'You clean the apple 1.',
            action: 'clean apple 1 with sinkbasin 1',
            valid: true,
            reward: 1,
            done: true,
            tokenStart: 1,
            tokenCount: 2,
          },
        ],
      },
    ],
    // 0.1 and 1/3 are not float32 numbers' shortest decimals; -Infinity, NaN and a subnormal test the edges.
    tokens: {
      ids: Int32Array.from([40, 41, 2]),
      adv: f([0.1, 1 / 3, -0.5]),
      aEp: f([0.5, 0.5, 0.5]),
      aSkill: null,
      logpSkill: null,
      logpOld: f([-0.2, -1e-45, -3.75]),
      logpRef: f([-0.25, -Infinity, -4]),
      entropy: f([1.5, 0.25, 0.125]),
      ratio: f([1, NaN, 1.0000001]),
    },
  };
}

describe("trajectories.jsonl detail: the explorer's numbers of the group", () => {
  it(
    'reads back every float32 exactly (NaN as null, -Infinity as -1e39) and rebuilds the turns without ' + 'prompts',
    () => {
      expect([f32Json(Math.fround(0.1)), f32Json(NaN), f32Json(-Infinity), f32Json(Infinity)]).toEqual([
        0.100000001,
        null,
        -1e39,
        1e39,
      ]);
      const d = detailOf();
      const line = trajectoryLine({ step: 3, group: [view] }, d);
      const rec = parseTrajectoryLines(line)[0];
      expect(rec.detail?.tokens.ratio).toEqual([1, null, 1.00000012]);
      const g = storedGroup(rec);
      expect(g.stored).toEqual({ notKept: [NOT_KEPT_PROMPTS], tokens: true });
      expect(g.tokens).toEqual(d.tokens);
      for (const k of ['adv', 'logpOld', 'logpRef', 'entropy', 'ratio'] as const)
        expect(Buffer.from(g.tokens[k]!.buffer).equals(Buffer.from(d.tokens[k]!.buffer)), k).toBe(true);
      expect(g.taskIndex).toBe(12);
      expect(g.trajectories).toEqual(
        d.trajectories.map((t) => ({ ...t, turns: t.turns.map((u) => ({ ...u, prompt: null })) })),
      );
      // A detail of another step or shape is not paired with the text.
      expect(JSON.parse(trajectoryLine({ step: 4, group: [view] }, d))).not.toHaveProperty('detail');
      expect(
        JSON.parse(trajectoryLine({ step: 3, group: [{ ...view, steps: view.steps.slice(0, 1) }] }, d)),
      ).not.toHaveProperty('detail');
    },
  );
  it('refuses a detail that does not fit its group, naming the field', () => {
    const line = trajectoryLine({ step: 3, group: [view] }, detailOf());
    expect(() => parseTrajectoryLines(line.replace('"tokenCounts":[1,2]', '"tokenCounts":[1,3]'))).toThrow(
      /line 1: detail.tokens.ids: has 3 values for 4 action tokens/,
    );
    expect(() => parseTrajectoryLines(line.replace('"rewards":[0,1]', '"rewards":[0]'))).toThrow(
      /line 1: detail.trajectories.0.rewards: has 1 entry for 2 turns/,
    );
    expect(() => parseTrajectoryLines(line.replace('"ids":[40,41,2]', '"ids":[40,41,"x"]'))).toThrow(
      /line 1: detail.tokens.ids.2/,
    );
  });
  it('a line without detail gives the text alone, naming what is not kept instead of inventing it', () => {
    const g = storedGroup(
      parseTrajectoryLines(
        trajectoryLine({ step: 3, group: [view, { ...view, steps: [{ ...view.steps[0], valid: false }] }] }),
      )[0],
    );
    expect(g.stored).toEqual({ notKept: [NOT_KEPT_PROMPTS, NOT_KEPT_NUMBERS], tokens: false });
    expect(g.tokens.ids.length).toBe(0);
    expect(
      [g.taskIndex, g.trajectories[0].score, g.trajectories[0].advantage, g.trajectories[0].turns[0].reward].every(
        Number.isNaN,
      ),
    ).toBe(true);
    expect(g.trajectories[0].turns.map((u) => [u.reply, u.done, u.tokenCount])).toEqual([
      [view.steps[1].observation, false, 0],
      ['', true, 0],
    ]);
    expect(g.trajectories.map((t) => t.invalidCount)).toEqual([0, 1]);
  });
});

describe('cutting a record back to a checkpoint (resume)', () => {
  const L = (o: object) => JSON.stringify(o);
  const lines = [
    L({ event: 'start', config: {}, backend: 'wasm', params: 1, envVersions: {} }),
    L({ event: 'step', step: 1, successRate: 0, rewardMean: 0, policyLoss: 0 }),
    L({ event: 'step', step: 2, successRate: 0, rewardMean: 0, policyLoss: 0 }),
    L({ event: 'checkpoint', step: 2, file: 'ckpt-2.safetensors', stateFile: 'ckpt-2.state' }),
    L({ event: 'step', step: 3, successRate: 0, rewardMean: 0, policyLoss: 0 }),
    L({ event: 'eval', step: 3, splits: {} }),
  ];
  it('drops the lines after step k and keeps (or adds) the checkpoint line', () => {
    expect(cutEventsText(lines.join('\n') + '\n', 2)).toEqual({
      text: lines.slice(0, 4).join('\n') + '\n',
      dropped: 2,
    });
    expect(cutEventsText(lines.slice(0, 3).join('\n'), 2)).toEqual({
      text: lines.slice(0, 4).join('\n') + '\n',
      dropped: 0,
    });
    expect(() => cutEventsText('{"event":"step"', 2)).toThrow(/line 1/);
    const t = [1, 2, 3].map((s) => L({ step: s, group: [] })).join('\n');
    expect(cutTrajectoriesText(t, 2)).toBe(`${L({ step: 1, group: [] })}\n${L({ step: 2, group: [] })}\n`);
  });
});
