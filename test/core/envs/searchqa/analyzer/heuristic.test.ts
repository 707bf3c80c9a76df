/**
 * The searchqa env's embedded analyzer on hand-built groups played through the real env (searchqa/default), with the
 * exact skills each rule writes: a success beside a failure that answered after one hop (the `http` prompt's worked
 * examples), a search for the wrong entity (a passage's other name, another organisation), a wrong name copied from
 * a passage, an all-fail group planned from the passages its searches showed, a comparison, a clue, a success with
 * detours, steps run out, a task line of no known shape, no mistake the plan can name (searchqa's own fallback), K,
 * failedOnly and the counters.
 *
 * Tasks: train/1 `In which town was the author of The Rising Compass born?` (The Rising Compass → Wystan Morrow →
 * Raven Gate); test-seen/3 `Where was the founder of the Azure Bank born?` (Azure Bank → Mira Yarrow → Silver Vale;
 * the Azure Bank's passage also names its base, Bramble Ford); train/3 `Who was born first, Tavin Tregarth or Niko
 * Kendal?` (Tavin Tregarth, 1862 before 1866); train/10 `Which event did the Sable League organise in 1898?` (Jubilee
 * Exhibition; `search[Sable League]` shows it beside the Peace Exhibition of 1894).
 */
import { describe, expect, it } from 'vitest';
import { SEARCHQA_FALLBACK, SearchQaAnalyzer } from '../../../../../src/core/envs/searchqa/analyzer/heuristic';
import { getEnvSpec } from '../../../../../src/core/envs/registry';
import { buildTokenizer } from '../../../../../src/core/model/policy';
import { SEARCHQA_PROMPT } from '../../../../../src/core/envs/searchqa/analyzer/prompt-examples';
import type { AnalyzerOptions, AnalyzerTrajectory, AnalysisResult } from '../../../../../src/core/envs/types';
import { playActions, type Played } from './helpers';

const T1 = { split: 'train', index: 1 } as const;
const BANK = { split: 'test-seen', index: 3 } as const;
const WIN1 = ['search[The Rising Compass]', 'search[Wystan Morrow]', 'answer[Raven Gate]'];
const WIN_BANK = ['search[Azure Bank]', 'search[Mira Yarrow]', 'answer[Silver Vale]'];

/** Analyse one group of played episodes (or hand-made trajectories). */
const analyze = (runs: (Played | AnalyzerTrajectory)[], o: AnalyzerOptions = { maxStepSkills: 5 }) =>
  new SearchQaAnalyzer(o).analyze({
    env: 'searchqa',
    trajectories: runs.map((r) => ('traj' in r ? r.traj : r)),
  }) as Promise<AnalysisResult>;

describe('searchqa heuristic analyzer: hand-built groups', () => {
  it('a success beside a failure that answered after one hop (the http prompt examples)', async () => {
    const win = playActions(T1, WIN1);
    const early = playActions(T1, ['search[The Rising Compass]', 'answer[Wystan Morrow]']);
    expect(win.traj.success).toBe(true);
    expect(early.traj.success).toBe(false);
    expect(early.traj.steps[1].observation).toContain('The Rising Compass is a novel by Wystan Morrow');
    const plan = 'plan: search[The Rising Compass], then search[Wystan Morrow], then answer[Raven Gate].';
    const failure = {
      episodeSkill:
        'avoid: answer[Wystan Morrow]. warning sign: the task target is a town. instead: search[Wystan Morrow].',
      stepSkills: { 1: 'next, search[Wystan Morrow].' },
    };
    // K = 2, the OPID paper's K for search QA: the success's last two plan steps.
    const k2 = await analyze([win, early], { maxStepSkills: 2 });
    expect(k2).toEqual([
      { episodeSkill: plan, stepSkills: { 1: 'next, search[Wystan Morrow].', 2: 'next, answer[Raven Gate].' } },
      failure,
    ]);
    expect(k2).toEqual(SEARCHQA_PROMPT.examples.map((e) => e.skills));
    expect((await analyze([win, early]))[0]).toEqual({
      episodeSkill: plan,
      stepSkills: {
        0: 'next, search[The Rising Compass].',
        1: 'next, search[Wystan Morrow].',
        2: 'next, answer[Raven Gate].',
      },
    });
    expect((await analyze([win], { maxStepSkills: 0 }))[0]).toEqual({ episodeSkill: plan, stepSkills: {} });
    // Alone, the skipped hop is read from the failure's own passage: the same skills, without the answer.
    expect(await analyze([early])).toEqual([failure]);
  });

  it("a search for a passage's other name, beside the success: the hop the success searched", async () => {
    const wrong = playActions(BANK, ['search[Azure Bank]', 'search[Bramble Ford]', 'answer[Bramble Ford]']);
    expect(wrong.traj.steps[2].observation).toMatch(/^Doc 1\(Title: Bramble Ford\) Bramble Ford is a town in Sarnoth/);
    expect(await analyze([playActions(BANK, WIN_BANK), wrong], { maxStepSkills: 2 })).toEqual([
      {
        episodeSkill: 'plan: search[Azure Bank], then search[Mira Yarrow], then answer[Silver Vale].',
        stepSkills: { 1: 'next, search[Mira Yarrow].', 2: 'next, answer[Silver Vale].' },
      },
      {
        // Step 2's answer came before the second hop too: its fix is that hop's search.
        episodeSkill:
          'avoid: search[Bramble Ford]. warning sign: the task target is Mira Yarrow. instead: search[Mira Yarrow].',
        stepSkills: { 1: 'next, search[Mira Yarrow].', 2: 'next, search[Mira Yarrow].' },
      },
    ]);
  });

  it('a search for another organisation than the question names: the task names the one to search', async () => {
    const other = playActions(BANK, ['search[Azure Club]', 'answer[Petra Everard]']);
    expect(other.traj.steps[1].observation).not.toContain('Title: Azure Bank');
    expect(await analyze([other])).toEqual([
      {
        episodeSkill:
          'avoid: search[Azure Club]. warning sign: the task names Azure Bank. instead: search[Azure Bank].',
        stepSkills: { 0: 'next, search[Azure Bank].', 1: 'next, search[Azure Bank].' },
      },
    ]);
  });

  it('an all-fail group is planned from every passage its searches showed', async () => {
    const early = playActions(BANK, ['search[Azure Bank]', 'answer[Mira Yarrow]']);
    const copied = playActions(BANK, ['search[Azure Bank]', 'search[Mira Yarrow]', 'answer[Bramble Ford]']);
    const lost = playActions(BANK, ['xyz', 'search[Azure]', 'search[Azure]', 'search[Azure]']);
    expect([early, copied, lost].map((r) => r.traj.success)).toEqual([false, false, false]);
    // Mira Yarrow's passage (shown to `copied` only) says where she was born: every failure's fix can answer.
    expect(copied.traj.steps[2].observation).toContain('Mira Yarrow was a singer born in Silver Vale in 1820.');
    expect(await analyze([early, copied, lost])).toEqual([
      {
        episodeSkill:
          'avoid: answer[Mira Yarrow]. warning sign: the task target is a town. instead: search[Mira Yarrow].',
        stepSkills: { 1: 'next, search[Mira Yarrow].' },
      },
      {
        episodeSkill:
          'avoid: answer[Bramble Ford]. warning sign: the task target is Silver Vale. instead: answer[Silver Vale].',
        stepSkills: { 2: 'next, answer[Silver Vale].' },
      },
      {
        // Invalid, another organisation, a repeat, a repeat on the last step (where only an answer can score).
        episodeSkill: 'avoid: xyz. warning sign: nothing happens. instead: search[Azure Bank].',
        stepSkills: {
          0: 'next, search[Azure Bank].',
          1: 'next, search[Azure Bank].',
          2: 'next, search[Azure Bank].',
          3: 'next, answer[Silver Vale].',
        },
      },
    ]);
    // Alone, `lost` never saw the Azure Bank's passage: no answer is known, so its last step gets no fix.
    expect(await analyze([lost])).toEqual([
      {
        episodeSkill: 'avoid: xyz. warning sign: nothing happens. instead: search[Azure Bank].',
        stepSkills: { 0: 'next, search[Azure Bank].', 1: 'next, search[Azure Bank].', 2: 'next, search[Azure Bank].' },
      },
    ]);
  });

  it('a search after every hop was found, then one on the last step: the answer is the fix', async () => {
    const late = playActions(BANK, ['search[Azure Bank]', 'search[Mira Yarrow]', 'search[Silver Vale]', 'search[x]']);
    expect(late.traj.steps.map((s) => s.valid)).toEqual([true, true, true, true]);
    expect((await analyze([playActions(BANK, WIN_BANK), late]))[1]).toEqual({
      episodeSkill:
        'avoid: search[Silver Vale]. warning sign: the task target is Silver Vale. instead: answer[Silver Vale].',
      stepSkills: { 2: 'next, answer[Silver Vale].', 3: 'next, answer[Silver Vale].' },
    });
  });

  it('a comparison answered after one of its two names: the task names the other', async () => {
    const half = playActions({ split: 'train', index: 3 }, ['search[Tavin Tregarth]', 'answer[Niko Kendal]']);
    expect(half.traj.task).toBe('Who was born first, Tavin Tregarth or Niko Kendal?');
    expect(await analyze([half])).toEqual([
      {
        episodeSkill:
          'avoid: answer[Niko Kendal]. warning sign: the task names Niko Kendal. instead: search[Niko Kendal].',
        stepSkills: { 1: 'next, search[Niko Kendal].' },
      },
    ]);
  });

  it('a clue whose passage was shown, answered with the wrong title: the passage with its facts', async () => {
    const wrong = playActions({ split: 'train', index: 10 }, ['search[Sable League]', 'answer[Peace Exhibition]']);
    expect(wrong.traj.steps[1].observation).toContain(
      'The Jubilee Exhibition was held in Amber Haven in 1898 and organised by the Sable League.',
    );
    expect(await analyze([wrong])).toEqual([
      {
        episodeSkill:
          'avoid: answer[Peace Exhibition]. warning sign: the task target is Jubilee Exhibition. instead: ' +
          'answer[Jubilee Exhibition].',
        stepSkills: { 1: 'next, answer[Jubilee Exhibition].' },
      },
    ]);
  });

  it('a success with detours: its own words in its plan; detours first, then its latest plan steps', async () => {
    const run = playActions(BANK, [
      'search[founder Azure Bank]',
      'answer ',
      'search[Mira Yarrow]',
      'answer[silver vale.]',
    ]);
    expect(run.traj.success).toBe(true);
    const plan = 'plan: search[founder Azure Bank], then search[Mira Yarrow], then answer[silver vale.].';
    expect(await analyze([run])).toEqual([
      {
        episodeSkill: plan,
        stepSkills: {
          0: 'next, search[founder Azure Bank].',
          1: 'next, search[Mira Yarrow].',
          2: 'next, search[Mira Yarrow].',
          3: 'next, answer[silver vale.].',
        },
      },
    ]);
    expect(await analyze([run], { maxStepSkills: 2 })).toEqual([
      { episodeSkill: plan, stepSkills: { 1: 'next, search[Mira Yarrow].', 3: 'next, answer[silver vale.].' } },
    ]);
  });

  it('a task line of no known shape: own searches as the plan, the success answer as the only fix', async () => {
    const START = 'Search with search[query], or give the final answer with answer[text].';
    const KH = 'Doc 1(Title: Kestrel Hollow) Kestrel Hollow is a town in Arvenia, founded in 1712.';
    const step = (observation: string, action: string, ret = 0) => ({ observation, action, valid: true, return: ret });
    const fail: AnalyzerTrajectory = {
      task: 'Name a town.',
      success: false,
      finalObservation: 'The answer is wrong.',
      steps: [step(START, 'search[Kestrel]'), step(KH, 'search[Kestrel]'), step(KH, 'answer[Arvenia]')],
    };
    const win: AnalyzerTrajectory = {
      task: 'Name a town.',
      success: true,
      finalObservation: 'The answer is correct.',
      steps: [step(START, 'search[Kestrel]', 0.95), step(KH, 'answer[Kestrel Hollow]', 1)],
    };
    const repeat =
      'avoid: search[Kestrel]. warning sign: you already did that. instead: follow the task in fewer steps.';
    expect(await analyze([fail])).toEqual([{ episodeSkill: repeat, stepSkills: {} }]);
    expect(await analyze([win, fail])).toEqual([
      {
        episodeSkill: 'plan: search[Kestrel], then answer[Kestrel Hollow].',
        stepSkills: { 0: 'next, search[Kestrel].', 1: 'next, answer[Kestrel Hollow].' },
      },
      { episodeSkill: repeat, stepSkills: { 2: 'next, answer[Kestrel Hollow].' } },
    ]);
  });

  it("no mistake the plan can name: searchqa's own fallback, never household's wandering", async () => {
    // The winning episode of train/1, judged failed (right answer at step 2 of 4): every step is the plan's.
    const win = playActions(T1, WIN1);
    const judgedFailed = { ...win.traj, success: false };
    expect(await analyze([judgedFailed])).toEqual([
      {
        episodeSkill:
          'avoid: answer[Raven Gate]. warning sign: the answer is wrong. instead: search the passage that names ' +
          'the answer.',
        stepSkills: {},
      },
    ]);
    // No answer at all (a trajectory with no step): without a plan answer, and with the success's beside it.
    const none: AnalyzerTrajectory = {
      ...win.traj,
      success: false,
      steps: [],
      finalObservation: win.traj.steps[0].observation,
    };
    const noAnswer = 'avoid: search with no final answer. warning sign: steps run out. instead: ';
    expect(await analyze([none])).toEqual([
      { episodeSkill: `${noAnswer}give the final answer in fewer steps.`, stepSkills: {} },
    ]);
    expect((await analyze([win, none]))[1]).toEqual({ episodeSkill: `${noAnswer}answer[Raven Gate].`, stepSkills: {} });
    // Every word is one of the env's tokens: no byte fallback but for punctuation.
    const tok = buildTokenizer(getEnvSpec('searchqa'));
    for (const text of Object.values(SEARCHQA_FALLBACK))
      expect(tok.encode(` ${text}`).filter((i) => i >= tok.byteOffset && i < tok.byteOffset + 256)).toEqual([]);
  });

  it('failedOnly: successes get null and are not counted; K and the counters', async () => {
    const win = playActions(T1, WIN1);
    const early = playActions(T1, ['search[The Rising Compass]', 'answer[Wystan Morrow]']);
    const a = new SearchQaAnalyzer({ maxStepSkills: 0, failedOnly: true });
    expect(await a.analyze({ env: 'searchqa', trajectories: [win.traj, early.traj] })).toEqual([
      null,
      { episodeSkill: SEARCHQA_PROMPT.examples[1].skills.episodeSkill, stepSkills: {} },
    ]);
    expect(a.stats()).toEqual({ calls: 1, failures: 0, latencyMs: expect.any(Number), failureReasons: {} });
    expect(a.name).toBe('heuristic');
    expect(() => new SearchQaAnalyzer({ maxStepSkills: 1.5 })).toThrow(
      'heuristic analyzer: maxStepSkills must be an integer ≥ 0, got 1.5',
    );
    expect(await new SearchQaAnalyzer({ maxStepSkills: 2 }).analyze({ env: 'searchqa', trajectories: [] })).toEqual([]);
  });
});
