/**
 * Pretraining's `failure` demonstrations (src/core/pretrain/demos.ts `failureHint`) never name a bare open form
 * (`search[`, `answer[`: no action a policy could take) as the mistake: on shop every failure skill's mistake is a
 * concrete `click[…]`, and a drawn step that offers only `search[` gets no failure skill; on searchqa, whose every
 * action is open, no failure skill is written and the expert's plan is demonstrated without one. Household's
 * demonstrations, whose actions are never open, are byte for byte what they were before that rule: the sha256 of
 * their samples (prompt, response and allowed-token ids) for both presets, the default mix and a failure-only mix,
 * was recorded with the code before the change.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MIX, makeDemos, type DemoMix } from '../../../src/core/pretrain/demos';
import { expertPlanFor } from '../../../src/core/envs/expert-hints';
import { getEnvSpec } from '../../../src/core/envs/registry';
import { isOpenAction } from '../../../src/core/envs/types';
import { buildTokenizer } from '../../../src/core/model/policy';
import { Rng } from '../../../src/core/rng';

const FAILURE_ONLY: DemoMix = { noisy: 0, episode: 0, step: 0, failure: 1 };

/** Demonstrations of 60 train tasks of `env`/`preset` with `mix` (seed 11). */
function demos(env: string, preset: string, mix: DemoMix) {
  const spec = getEnvSpec(env);
  const tok = buildTokenizer(spec);
  const maxPrompt = 384 - (spec.maxActionTokens ?? 12);
  const d = makeDemos(spec, tok, {
    preset,
    tasks: 60,
    noise: 0.3,
    stepHintRate: 0.7,
    stepNoise: 0.2,
    historyTurns: 3,
    maxPrompt: env === 'household' ? 372 : maxPrompt,
    mix,
    rng: new Rng(11),
  });
  return { d, tok, spec };
}

/** The mistakes the failure skills in the demonstrations' prompts name (both failure templates). */
function mistakes(env: string): { skills: number; mistakes: string[]; samples: number; hinted: number } {
  const { d, tok } = demos(env, 'default', FAILURE_ONLY);
  const found = new Set<string>();
  for (const s of d.samples) {
    const text = tok.decode(s.prompt, { skipSpecial: true });
    const m = /avoid: (.+?)\. warning sign: .+? instead: .+?\.|do not (.+?), since .+?; .+? instead\./.exec(text);
    if (m) found.add(m[1] ?? m[2]);
  }
  return { skills: found.size, mistakes: [...found], samples: d.samples.length, hinted: d.hinted };
}

describe('failure demonstrations never name a bare open form', () => {
  it('household: the samples are byte for byte those before the rule (sha256 pinned)', () => {
    const digests: Record<string, string> = {};
    for (const preset of ['default', 'easy'])
      for (const [name, mix] of [
        ['default', DEFAULT_MIX],
        ['failure', FAILURE_ONLY],
      ] as const) {
        const { d } = demos('household', preset, mix);
        const body = JSON.stringify([
          d.episodes,
          d.hinted,
          d.samples.map((s) => [s.prompt, s.response, s.allowed.map((a) => (a ? Array.from(a) : null))]),
        ]);
        digests[`${preset}/${name}`] = `${d.samples.length} ${createHash('sha256').update(body).digest('hex')}`;
      }
    expect(digests).toEqual({
      'default/default': '444 c1e084aaaebb1ba5f6240f1a80e2bd5e1a01c1d8bd749cace0174955854e6140',
      'default/failure': '394 6b6bc24f5f96bfa42d63ffe64bcc549b00326553dc4af5d371156e66ea4b59a8',
      'easy/default': '274 4227f403874290b6333095add366b804af974379f2f17183fb666296cd60700b',
      'easy/failure': '240 a691d96c51564766d5ab90e185e7fd4430ca91427d4c1da1cea686c9c616312b',
    });
  });

  it('shop: every mistake named is a concrete click[…]', () => {
    const r = mistakes('shop');
    expect(r.skills).toBeGreaterThan(30);
    for (const m of r.mistakes) {
      expect(isOpenAction(m), m).toBe(false);
      expect(m).toMatch(/^click\[[^[\]]+\]$/);
    }
    // Some drawn steps were search pages (only `search[` offered): those episodes carry no failure skill.
    expect(r.hinted).toBeLessThan(r.samples);
  });

  it("searchqa (every action open): no failure skill; the expert's plans are demonstrated", () => {
    const r = mistakes('searchqa');
    expect(r).toMatchObject({ skills: 0, hinted: 0 });
    const { d, tok, spec } = demos('searchqa', 'default', FAILURE_ONLY);
    const plans = Array.from({ length: 60 }, (_, index) =>
      expertPlanFor(spec, 'default', { split: 'train', index }),
    ).flat();
    expect(d.samples.map((s) => tok.decode(s.response, { skipSpecial: true }).trim())).toEqual(plans);
  });
});
