import { describe, expect, it } from 'vitest';
import { makeDemos, parseMix, DEFAULT_MIX } from '../../../src/core/pretrain/demos';
import { expertPlanFor, hintHooks } from '../../../src/core/envs/expert-hints';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { buildTokenizer } from '../../../src/core/model/policy';
import { Rng } from '../../../src/core/rng';

const spec = getEnvSpec('household');
const tok = buildTokenizer(spec);
const base = {
  preset: 'easy',
  tasks: 40,
  noise: 0.3,
  stepHintRate: 0.7,
  stepNoise: 0,
  historyTurns: 3,
  maxPrompt: 372,
};
const text = (ids: readonly number[]) => tok.decode(ids, { skipSpecial: true });

describe('pretraining demonstrations', () => {
  it('parseMix reads kind=weight pairs over the defaults and names a bad part', () => {
    expect(parseMix('noisy=0.25,step=0.55')).toEqual({ ...DEFAULT_MIX, noisy: 0.25, step: 0.55 });
    expect(parseMix(' failure=0 , episode=2 ', { noisy: 1, episode: 1, step: 1, failure: 1 })).toEqual({
      noisy: 1,
      episode: 2,
      step: 1,
      failure: 0,
    });
    expect(() => parseMix('noise=0.3')).toThrow(
      'mix: "noise=0.3" is not kind=weight with kind one of noisy, episode, step, failure and weight ≥ ' +
        '0 (e.g. noisy=0.3,step=0.6); did you mean noisy=0.3?',
    );
    expect(() => parseMix('stpe=1')).toThrow(/; did you mean step=1\?$/);
    // a known kind: no suggestion
    expect(() => parseMix('step=-1')).toThrow(/"step=-1" is not kind=weight .*step=0\.6\)$/);
    expect(() => parseMix('xyz=1')).toThrow(/\(e\.g\. noisy=0\.3,step=0\.6\)$/);
    expect(() => parseMix('noisy=0,episode=0,step=0,failure=0')).toThrow(/at least one weight must be > 0/);
  });

  it('are deterministic for a seed and differ for another', () => {
    const mix = { noisy: 1, episode: 1, step: 1, failure: 1 };
    const a = makeDemos(spec, tok, { ...base, mix, rng: new Rng(3) });
    const b = makeDemos(spec, tok, { ...base, mix, rng: new Rng(3) });
    const c = makeDemos(spec, tok, { ...base, mix, rng: new Rng(4) });
    expect(a.samples.map((s) => [...s.prompt, -1, ...s.response])).toEqual(
      b.samples.map((s) => [...s.prompt, -1, ...s.response]),
    );
    expect(a.samples.map((s) => s.prompt.join())).not.toEqual(c.samples.map((s) => s.prompt.join()));
    expect(Object.values(a.episodes).reduce((x, y) => x + y, 0)).toBe(40);
  });

  it('noise 0 without hints replays the expert plan exactly, with no skill block', () => {
    const d = makeDemos(spec, tok, {
      ...base,
      tasks: 3,
      noise: 0,
      mix: { noisy: 1, episode: 0, step: 0, failure: 0 },
      rng: new Rng(1),
    });
    const actions = d.samples.map((s) => text(s.response).trim());
    const plans = [0, 1, 2].flatMap((index) => expertPlanFor(spec, 'easy', { split: 'train', index }));
    expect(actions).toEqual(plans);
    expect(d.hinted).toBe(0);
    for (const s of d.samples) expect(s.prompt).not.toContain(tok.special('<skill>'));
  });

  it('episode demos carry the expert plan as the episode skill, step demos the expert action as the step skill', () => {
    const ep = makeDemos(spec, tok, {
      ...base,
      tasks: 1,
      mix: { noisy: 0, episode: 1, step: 0, failure: 0 },
      rng: new Rng(1),
    });
    const plan = expertPlanFor(spec, 'easy', { split: 'train', index: 0 });
    const p0 = text(ep.samples[0].prompt);
    for (const a of plan) expect(p0).toContain(a);
    expect(ep.hinted).toBe(ep.samples.length);
    const st = makeDemos(spec, tok, {
      ...base,
      tasks: 5,
      stepHintRate: 1,
      mix: { noisy: 0, episode: 0, step: 1, failure: 0 },
      rng: new Rng(1),
    });
    for (const s of st.samples) {
      const action = text(s.response).trim();
      const at = s.prompt.indexOf(tok.special('<step_skill>'));
      expect(at).toBeGreaterThan(0);
      expect(text(s.prompt.slice(at + 1, -1))).toContain(action);
    }
  });

  it(
    'step demos with stepNoise also hint off the expert path: random moves are taken, not demonstrated, ' +
      'and the next hint names the recovery',
    () => {
      const plans = new Set(
        Array.from({ length: 8 }, (_, index) => expertPlanFor(spec, 'easy', { split: 'train', index })).flat(),
      );
      const stepOnly = { noisy: 0, episode: 0, step: 1, failure: 0 };
      /** Samples whose prompt history holds an action the expert never takes on these tasks (an off-path state). */
      const offPath = (d: ReturnType<typeof makeDemos>) =>
        d.samples.filter((s) => {
          const action = text(s.response).trim();
          const at = s.prompt.indexOf(tok.special('<step_skill>'));
          expect(text(s.prompt.slice(at + 1, -1))).toContain(action); // every demonstrated step names its action
          const h = s.prompt.indexOf(tok.special('<hist>')),
            o = s.prompt.indexOf(tok.special('<obs>'));
          const turns: string[] = [];
          let cur: number[] = [];
          for (const id of s.prompt.slice(h + 1, o)) {
            if (id === tok.special('<sep>')) {
              turns.push(text(cur).trim());
              cur = [];
            } else cur.push(id);
          }
          return turns.filter((_, k) => k % 2 === 0).some((a) => !plans.has(a));
        }).length;
      const noisy = makeDemos(spec, tok, {
        ...base,
        tasks: 8,
        stepNoise: 0.5,
        stepHintRate: 1,
        mix: stepOnly,
        rng: new Rng(5),
      });
      const clean = makeDemos(spec, tok, {
        ...base,
        tasks: 8,
        stepNoise: 0,
        stepHintRate: 1,
        mix: stepOnly,
        rng: new Rng(5),
      });
      expect(noisy.hinted).toBe(noisy.samples.length);
      expect(offPath(noisy)).toBeGreaterThan(5);
      expect(offPath(clean)).toBe(0);
      expect(clean.samples.length).toBe(
        Array.from({ length: 8 }, (_, index) => expertPlanFor(spec, 'easy', { split: 'train', index }).length).reduce(
          (a, b) => a + b,
          0,
        ),
      );
    },
  );

  it(
    'episode demos with episodeNoise follow the plan after detours: random moves are taken, not ' +
      "demonstrated; every demonstrated action is the expert's from the visited state",
    () => {
      const episodeOnly = { noisy: 0, episode: 1, step: 0, failure: 0 };
      // A history long enough to hold the whole episode, so the last sample's prompt shows every action taken before
      // it.
      const long = { ...base, historyTurns: 40, maxPrompt: 100000, mix: episodeOnly };
      // Seeded episodes (train task 0) and what they do: the actions taken and which steps were random.
      const known = {
        easy: {
          seed: 7,
          taken: [
            'go to shelf 1',
            'go to desk 1',
            'take box 1 from desk 1',
            'go to shelf 1',
            'go to sidetable 1',
            'move box 1 to sidetable 1',
          ],
          random: [0, 3],
        },
        default: {
          seed: 4,
          random: [0, 1, 2, 3, 5, 6, 8, 9],
          taken: [
            'go to shelf 1',
            'go to shelf 2',
            'go to shelf 3',
            'go to cabinet 2',
            'go to shelf 2',
            'examine shelf 2',
            'go to sofa 1',
            'go to shelf 2',
            'take pencil 1 from shelf 2',
            'move pencil 1 to shelf 2',
            'take box 1 from shelf 2',
            'go to sidetable 2',
            'use desklamp 1',
          ],
        },
      };
      for (const preset of ['easy', 'default'] as const) {
        const seed = known[preset].seed;
        const d = makeDemos(spec, tok, { ...long, preset, tasks: 1, episodeNoise: 0.5, rng: new Rng(seed) });
        const acts = (p: readonly number[]) => {
          const h = p.indexOf(tok.special('<hist>')),
            o = p.indexOf(tok.special('<obs>'));
          const turns: string[] = [];
          let cur: number[] = [];
          for (const id of p.slice(h + 1, o)) {
            if (id === tok.special('<sep>')) {
              turns.push(text(cur).trim());
              cur = [];
            } else cur.push(id);
          }
          return turns.filter((_, k) => k % 2 === 0);
        };
        const last = d.samples[d.samples.length - 1];
        const taken = [...acts(last.prompt), text(last.response).trim()];
        const demonstratedAt = d.samples.map((s) => acts(s.prompt).length); // step index of each demonstrated sample
        // Replay the taken actions: at each demonstrated step the response is the expert's action from that state.
        const env = spec.create(preset);
        env.reset({ split: 'train', index: 0 });
        const ex = spec.expert(env);
        const plan = expertPlanFor(spec, preset, { split: 'train', index: 0 });
        const random: number[] = [];
        taken.forEach((a, t) => {
          const expert = ex.act();
          const j = demonstratedAt.indexOf(t);
          if (j >= 0) {
            expect(text(d.samples[j].response).trim()).toBe(expert);
            expect(a).toBe(expert);
            const skill = text(d.samples[j].prompt.slice(0, d.samples[j].prompt.indexOf(tok.special('<hist>'))));
            for (const p of plan) expect(skill).toContain(p); // the episode skill is the plan from the task's start
          } else random.push(t);
          env.step(a);
        });
        expect(d.hinted).toBe(d.samples.length);
        expect(random.length).toBeGreaterThan(0); // some moves were random and are not among the samples
        expect(d.samples.length + random.length).toBe(taken.length);
        expect(taken).toEqual(known[preset].taken);
        expect(random).toEqual(known[preset].random);
        // After the random moves the expert's actions still complete the plan's task: the plan is followed after a
        // detour.
        expect(d.samples.map((x) => text(x.response).trim()).slice(-plan.length + 1)).toEqual(plan.slice(1));
      }
      // episodeNoise 0 (or omitted) draws nothing extra: the demonstrations are the plan, as without the setting.
      const mix = { noisy: 1, episode: 1, step: 1, failure: 1 };
      const a = makeDemos(spec, tok, { ...base, mix, rng: new Rng(9) });
      const b = makeDemos(spec, tok, { ...base, mix, episodeNoise: 0, rng: new Rng(9) });
      expect(b.samples).toEqual(a.samples);
      const clean = makeDemos(spec, tok, { ...base, tasks: 1, episodeNoise: 0, mix: episodeOnly, rng: new Rng(7) });
      expect(clean.samples.map((s) => text(s.response).trim())).toEqual(
        expertPlanFor(spec, 'easy', { split: 'train', index: 0 }),
      );
      expect(() => makeDemos(spec, tok, { ...base, mix, episodeNoise: 1, rng: new Rng(1) })).toThrow(
        /episodeNoise must be in \[0, 1\), got 1/,
      );
    },
  );

  it(
    'failure demos name a wrong admissible action and the expert fix; the demonstrated actions are the ' + "expert's",
    () => {
      const d = makeDemos(spec, tok, {
        ...base,
        tasks: 6,
        mix: { noisy: 0, episode: 0, step: 0, failure: 1 },
        rng: new Rng(2),
      });
      const plans = [0, 1, 2, 3, 4, 5].flatMap((index) => expertPlanFor(spec, 'easy', { split: 'train', index }));
      expect(d.samples.map((s) => text(s.response).trim())).toEqual(plans);
      const first = text(d.samples[0].prompt);
      expect(first).toMatch(/avoid: .+\. warning sign: .+\. instead: .+\.|do not .+, since .+; .+ instead\./);
    },
  );

  it('hinted evaluation hooks give the expert plan and the expert next action', () => {
    const refs = [{ split: 'test-seen' as const, index: 0 }];
    const h = hintHooks(spec, 'easy', refs, 'both');
    const plan = expertPlanFor(spec, 'easy', refs[0]);
    expect(h.episodeSkill!(0, 'pick')).toBe('plan: ' + plan.join(', then ') + '.');
    const env = spec.create('easy');
    env.reset(refs[0]);
    expect(h.stepSkill!(0, env)).toBe(`next, ${plan[0]}.`);
    expect(hintHooks(spec, 'easy', refs, 'none')).toEqual({});
  });

  it('rejects bad settings', () => {
    expect(() =>
      makeDemos(spec, tok, { ...base, tasks: 0, mix: { noisy: 1, episode: 0, step: 0, failure: 0 }, rng: new Rng(1) }),
    ).toThrow(/tasks must be ≥ 1/);
    expect(() =>
      makeDemos(spec, tok, { ...base, mix: { noisy: 0, episode: 0, step: 0, failure: 0 }, rng: new Rng(1) }),
    ).toThrow(/mix weights/);
  });
});
