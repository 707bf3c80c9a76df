/**
 * The skill grammar: the one place where skill sentences are phrased, shared by the pretraining demonstrations,
 * the heuristic analyzer and the http analyzer's prompt.
 *
 * A skill is plain text injected into the prompt (OPID skill re-scoring, docs/architecture.md): an episode skill
 * after the task line, a step skill before the action cue. The base policy is pretrained on exactly these phrasings
 * (variant 0 is the canonical one; the others are paraphrases), so a tiny policy understands them. Actions inside a
 * skill are written exactly as the environment's admissible commands, so "follow the hint" is a copy the policy can
 * learn.
 *
 * Forms:
 * - step skill: one imperative decision, e.g. `next, take apple 1 from countertop 2.`
 * - success episode skill: the workflow that worked, in order, e.g.
 *   `plan: go to countertop 2, then take apple 1 from countertop 2, then go to fridge 1, then move apple 1 to
 *   fridge 1.`
 * - failure episode skill: the mistake, its warning sign and the fix, e.g.
 *   `avoid: take mug 2 from countertop 1. warning sign: the task names apple. instead: take apple 1 from countertop 1.`
 */

/** Step-skill templates; `{a}` is an admissible action. Variant 0 is canonical. */
export const STEP_TEMPLATES: readonly string[] = ['next, {a}.', 'now {a}.', 'you should {a} here.', 'best move: {a}.'];

/** Success episode-skill templates; `{w}` is the workflow (actions joined by the variant's joiner). */
export const EPISODE_TEMPLATES: readonly { text: string; join: string }[] = [
  { text: 'plan: {w}.', join: ', then ' },
  { text: 'what worked: {w}.', join: ', then ' },
  { text: 'follow this order: {w}.', join: '; ' },
];

/** Failure episode-skill templates: `{m}` mistake action, `{s}` warning sign, `{f}` fix (an action). */
export const FAILURE_TEMPLATES: readonly string[] = [
  'avoid: {m}. warning sign: {s}. instead: {f}.',
  'do not {m}, since {s}; {f} instead.',
];

/** Warning-sign phrases: `{o}` an object or receptacle kind from the task. */
export const SIGN_TEMPLATES: Readonly<Record<'wrongObject' | 'wrongPlace' | 'repeat' | 'invalid' | 'timeout', string>> =
  {
    wrongObject: 'the task names {o}',
    wrongPlace: 'the task target is {o}',
    repeat: 'you already did that',
    invalid: 'nothing happens',
    timeout: 'steps run out',
  };

/** Phrases the heuristic analyzer uses when a trajectory shows no concrete action to recommend. */
export const FALLBACK_PHRASES = {
  /** The mistake of an episode that ran out of steps without a recognisable wrong action. */
  wandering: 'wandering between places',
  /** Fix when the target receptacle is known: `{t}` its name, `{o}` the object kind. */
  bringTo: 'go to {t} once you hold the {o}',
  /** Fix when nothing concrete is known. */
  sooner: 'follow the task in fewer steps',
} as const;

const pick = <T>(list: readonly T[], variant: number): T => list[((variant % list.length) + list.length) % list.length];

/** A step skill for one action. `variant` selects a paraphrase (taken modulo the number of templates). */
export function stepSkill(action: string, variant = 0): string {
  return pick(STEP_TEMPLATES, variant).replace('{a}', action);
}

/**
 * A success episode skill from a workflow (the decisive actions in order).
 * @throws Error if `actions` is empty.
 */
export function episodeSkill(actions: readonly string[], variant = 0): string {
  if (!actions.length) throw new Error('episodeSkill: actions must not be empty');
  const t = pick(EPISODE_TEMPLATES, variant);
  return t.text.replace('{w}', actions.join(t.join));
}

/** A failure episode skill: the mistake (an action), the warning sign (a phrase) and the fix (an action). */
export function failureSkill(mistake: string, sign: string, fix: string, variant = 0): string {
  return pick(FAILURE_TEMPLATES, variant).replace('{m}', mistake).replace('{s}', sign).replace('{f}', fix);
}

/** A warning sign phrase; `o` fills `{o}` where the kind has one. */
export function warningSign(kind: keyof typeof SIGN_TEMPLATES, o = ''): string {
  return SIGN_TEMPLATES[kind].replace('{o}', o);
}

/** Every template text (placeholders removed): added to the tokenizer's corpus so skills encode as words. */
export function skillCorpus(): string[] {
  const strip = (s: string) => s.replace(/\{[a-z]\}/g, ' ');
  return [
    ...STEP_TEMPLATES,
    ...EPISODE_TEMPLATES.map((t) => t.text + t.join),
    ...FAILURE_TEMPLATES,
    ...Object.values(SIGN_TEMPLATES),
    ...Object.values(FALLBACK_PHRASES),
  ].map(strip);
}
