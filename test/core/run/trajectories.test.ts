/** Sampled trajectories (src/core/run/trajectories.ts): the stored line, and the chat-messages JSONL export. */
import { describe, expect, it } from 'vitest';
import { chatMessages, parseTrajectoryLines, toChatJsonl, trajectoryLine } from '../../../src/core/run/trajectories';
import { cutEventsText, cutTrajectoriesText } from '../../../src/core/run/cut';
import type { TrajectoryView } from '../../../src/core/train/events';

const view: TrajectoryView = {
  task: 'put a clean apple in fridge.', taskType: 'clean', success: true, reward: 1, score: 1, advantage: 0.5,
  initialObservation: 'You are in the kitchen.',
  steps: [
    { observation: 'You are in the kitchen.', action: 'take apple 1', valid: true, tokens: [{ text: 'take', logpOld: -1, logpRef: -1, adv: 0.5, entropy: 1 }] },
    { observation: 'You pick up the apple 1.', action: 'clean apple 1 with sinkbasin 1', valid: true, tokens: [] },
  ],
};

describe('trajectories.jsonl', () => {
  it('keeps the text of each step and drops the token views', () => {
    const line = trajectoryLine({ step: 3, group: [view] });
    expect(JSON.parse(line)).toEqual({
      step: 3,
      group: [{ task: view.task, taskType: 'clean', success: true, reward: 1, initialObservation: 'You are in the kitchen.', steps: [
        { observation: 'You are in the kitchen.', action: 'take apple 1', valid: true },
        { observation: 'You pick up the apple 1.', action: 'clean apple 1 with sinkbasin 1', valid: true },
      ] }],
    });
    expect(parseTrajectoryLines(`${line}\n\n`)).toHaveLength(1);
    expect(() => parseTrajectoryLines(`${line}\n{"step":0,"group":[]}`)).toThrow(/trajectories.jsonl line 2: step/);
  });
  it('keeps the skills of an OPID group: the episode skill, critical steps with their step skill, an analysis failure', () => {
    const opid: TrajectoryView = {
      ...view, episodeSkill: 'wash before cooling',
      steps: [{ ...view.steps[0], critical: true, stepSkill: 'take the apple first' }, { ...view.steps[1], critical: false }],
    };
    const failed: TrajectoryView = { ...view, success: false, reward: 0, analyzerError: 'analyzer failed: HTTP 500 (server error)' };
    const line = trajectoryLine({ step: 4, group: [opid, failed] });
    const [rec] = parseTrajectoryLines(line);
    expect(rec.group[0].episodeSkill).toBe('wash before cooling');
    expect(rec.group[0].steps).toEqual([
      { observation: 'You are in the kitchen.', action: 'take apple 1', valid: true, critical: true, stepSkill: 'take the apple first' },
      { observation: 'You pick up the apple 1.', action: 'clean apple 1 with sinkbasin 1', valid: true, critical: false },
    ]);
    expect(rec.group[1]).toMatchObject({ success: false, analyzerError: 'analyzer failed: HTTP 500 (server error)' });
    expect(Object.hasOwn(rec.group[1], 'episodeSkill')).toBe(false);
    expect(() => parseTrajectoryLines(line.replace('"critical":true', '"critical":"yes"'))).toThrow(/trajectories.jsonl line 1: group.0.steps.0.critical/);
  });
  it('exports one chat-messages line per trajectory, exactly', () => {
    const rec = parseTrajectoryLines(trajectoryLine({ step: 3, group: [view, { ...view, success: false, reward: 0, steps: [] }] }));
    expect(toChatJsonl(rec)).toBe(
      '{"messages":[{"role":"user","content":"put a clean apple in fridge.\\nYou are in the kitchen."},{"role":"assistant","content":"take apple 1"},' +
        '{"role":"user","content":"You pick up the apple 1."},{"role":"assistant","content":"clean apple 1 with sinkbasin 1"}],' +
        '"reward":1,"success":true,"task":"put a clean apple in fridge.","step":3}\n' +
        '{"messages":[{"role":"user","content":"put a clean apple in fridge.\\nYou are in the kitchen."}],"reward":0,"success":false,"task":"put a clean apple in fridge.","step":3}\n',
    );
    expect(chatMessages(rec[0].group[0]).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
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
    expect(cutEventsText(lines.join('\n') + '\n', 2)).toEqual({ text: lines.slice(0, 4).join('\n') + '\n', dropped: 2 });
    expect(cutEventsText(lines.slice(0, 3).join('\n'), 2)).toEqual({ text: lines.slice(0, 4).join('\n') + '\n', dropped: 0 });
    expect(() => cutEventsText('{"event":"step"', 2)).toThrow(/line 1/);
    const t = [1, 2, 3].map((s) => L({ step: s, group: [] })).join('\n');
    expect(cutTrajectoriesText(t, 2)).toBe(`${L({ step: 1, group: [] })}\n${L({ step: 2, group: [] })}\n`);
  });
});
